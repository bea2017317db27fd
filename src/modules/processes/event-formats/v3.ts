/** Events API v3 (5.2): as v2, with childproc as objects. */
import type { EventFormat } from './format.js';
import { childprocObject } from './objects.js';
import { v2 } from './v2.js';

export const v3: EventFormat = {
  ...v2,
  childproc: (event, sensorId) => childprocObject(event, sensorId, false),
};
