/**
 * The small vocabularies of Carbon Black's event records (reference core §4.5–4.6): time
 * formats, operation codes, IPv4 as a signed integer, and references to other processes.
 */
import { processId, REFERENCE_SEGMENT, uniqueId } from '../../../domain/process-id.js';
import { ipv4ToInt, toSignedInt32 } from '../../../query/values/ip.js';

/**
 * The last second formatted, `2021-04-04T18:11:40`: a segment's events come many to the second,
 * and formatting a Date per event was most of what listing them cost.
 */
let lastSecond = Number.NaN;
let lastSecondText = '';

/** `ms` as `2021-04-04T18:11:40` and `.309`. */
function timeParts(ms: number): [string, string] {
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastSecondText = new Date(second * 1000).toISOString().slice(0, 19);
  }
  return [lastSecondText, `.${String(ms - second * 1000).padStart(3, '0')}`];
}

/** `2021-04-04 18:11:40.309`: pipe records' times, UTC on the sensor's clock. */
export function pipeTime(ms: number): string {
  const [second, millis] = timeParts(ms);
  return `${second.slice(0, 10)} ${second.slice(11)}${millis}`;
}

/** `2021-04-04 20:17:38.590000`: filemod records carry microseconds (the real 7.x sample does). */
export function pipeTimeMicros(ms: number): string {
  return `${pipeTime(ms)}000`;
}

/** `2021-04-04T18:10:24.835Z`: netconn objects and processblock records. */
export function isoMillis(ms: number): string {
  const [second, millis] = timeParts(ms);
  return `${second}${millis}Z`;
}

/** `2021-04-04T18:10:08.548000Z`: childproc objects. */
export function isoMicros(ms: number): string {
  return isoMillis(ms).replace('Z', '000Z');
}

export const FILEMOD_CODES = { create: 1, first_write: 2, delete: 4, last_write: 8 } as const;
export const REGMOD_CODES = { create_key: 1, first_write: 2, delete_key: 4, delete_value: 8 } as const;

/** Crossproc type and sub-type: 1 a process handle, 2 a thread handle, 0 not a handle open. */
export const CROSSPROC_KINDS = {
  process_open: ['ProcessOpen', 1],
  thread_open: ['ProcessOpen', 2],
  remote_thread: ['RemoteThread', 0],
} as const;

/**
 * IPv4 as Carbon Black's integer formats give it: the address as a big-endian 32-bit number,
 * read signed. An IPv6 address cannot be one and stays text (cbapi falls back to the text).
 */
export function ipAsInteger(ip: string): number | string {
  const unsigned = ipv4ToInt(ip);
  return unsigned === undefined ? ip : toSignedInt32(unsigned);
}

/** Another process of the same sensor, as childproc and crossproc records name it. */
export function referencedProcess(sensorId: number, pid: number, startMs: number): string {
  return uniqueId(processId({ sensorId, pid, startMs }), REFERENCE_SEGMENT);
}

export const bool = (value: boolean | undefined): string => (value ? 'true' : 'false');
