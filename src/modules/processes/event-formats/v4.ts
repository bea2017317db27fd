/**
 * Events API v4 (6.0+, as 7.x writes it): netconn addresses as text (IPv6 too) with the TLS
 * fingerprints, and the SHA-256 of files, modules, children and cross-process targets.
 */
import type { EventFormat } from './format.js';
import { childprocObject, netconnObject } from './objects.js';
import { crossprocRecord, filemodRecord, modloadRecord } from './pipe.js';
import { v3 } from './v3.js';

export const v4: EventFormat = {
  ...v3,
  filemod: (event) => filemodRecord(event, true),
  modload: (event) => modloadRecord(event, true),
  netconn: (event) => netconnObject(event, 'text'),
  childproc: (event, sensorId) => childprocObject(event, sensorId, true),
  crossproc: (event, sensorId) => crossprocRecord(event, sensorId, true),
};
