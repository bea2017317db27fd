/**
 * How a chunk of a segment's events is stored: the normalized events as JSON, without the two
 * fields every event of a process shares (pid, process_start), in the order the sensor sent them.
 */
import type { SensorEvent } from '../../ingest/event.schemas.js';

export type StoredEvent = Omit<SensorEvent, 'pid' | 'process_start'>;

export function encodeChunk(events: readonly SensorEvent[]): string {
  return JSON.stringify(events.map(({ pid: _pid, process_start: _start, ...rest }) => rest));
}

export function decodeChunk(data: string | Buffer): StoredEvent[] {
  return JSON.parse(typeof data === 'string' ? data : data.toString('utf8')) as StoredEvent[];
}
