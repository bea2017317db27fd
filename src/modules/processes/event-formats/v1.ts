/** Events API v1 (5.0): every kind a pipe record, netconn addresses as signed integers. */
import type { EventFormat } from './format.js';
import { processblockRecord } from './objects.js';
import { childprocRecord, crossprocRecord, filemodRecord, modloadRecord, netconnRecord, regmodRecord } from './pipe.js';

export const v1: EventFormat = {
  filemod: (event) => filemodRecord(event, false),
  regmod: regmodRecord,
  modload: (event) => modloadRecord(event, false),
  netconn: netconnRecord,
  childproc: childprocRecord,
  crossproc: (event, sensorId) => crossprocRecord(event, sensorId, false),
  processblock: processblockRecord,
};
