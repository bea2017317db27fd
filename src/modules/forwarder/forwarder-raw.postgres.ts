/** PostgreSQL's event chunks for the forwarder: rows of event_chunks, deflated. */
import { inflateRawSync } from 'node:zlib';
import type { ChunkLoader, ChunkRef } from './forwarder-raw.js';

export function postgresChunkLoader(): ChunkLoader<ChunkRef & { data: Buffer }> {
  return {
    table: 'event_chunks',
    locator: 'c.data',
    joins: `JOIN segments s ON s.id = c.segment_row AND s.sensor_id = c.sensor_id AND s.segment_id = c.segment_id
      JOIN processes p ON p.id = s.process_id AND p.sensor_id = s.sensor_id`,
    load: (refs) => refs.map((ref) => inflateRawSync(ref.data)),
  };
}
