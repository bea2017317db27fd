/** Events API v2 (5.1): as v1, with netconn as objects whose addresses are signed integers. */
import type { EventFormat } from './format.js';
import { netconnObject } from './objects.js';
import { v1 } from './v1.js';

export const v2: EventFormat = {
  ...v1,
  netconn: (event) => netconnObject(event, 'integer'),
};
