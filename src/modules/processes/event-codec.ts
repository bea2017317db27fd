/**
 * How a chunk of a segment's events is stored: the normalized events as JSON, in the order the
 * sensor sent them. They keep their pid and process_start (redundant within a segment): leaving
 * them out costs a copy of every event at ingest, which is the hotter path.
 */
import type { SensorEvent } from '../../ingest/event.schemas.js';

export function encodeChunk(events: readonly SensorEvent[]): string {
  return JSON.stringify(events);
}

export function decodeChunk(data: string | Buffer): SensorEvent[] {
  return JSON.parse(typeof data === 'string' ? data : data.toString('utf8')) as SensorEvent[];
}
