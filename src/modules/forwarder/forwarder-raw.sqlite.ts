/** The embedded store's event chunks for the forwarder: rows of segment_chunks, bytes in the partitions' chunk files. */
import type { SqliteDatabase } from '../../db/dialects/sqlite.js';
import { ChunkFileReader } from '../processes/chunk-files.sqlite.js';
import type { ChunkLoader, ChunkRef } from './forwarder-raw.js';

export function sqliteChunkLoader(db: SqliteDatabase): ChunkLoader<ChunkRef & { file_id: number; byte_offset: number; byte_length: number }> {
  return {
    table: 'segment_chunks',
    locator: 'c.file_id, c.byte_offset, c.byte_length',
    joins: 'JOIN segments s ON s.id = c.segment_row JOIN processes p ON p.id = s.process_id',
    load(refs) {
      // A few reads from the page cache per batch, on the request thread as the detail store does.
      const files = new ChunkFileReader(db.connection.name);
      try {
        return refs.map((ref) => files.read(ref.file_id, ref.byte_offset, ref.byte_length));
      } finally {
        files.close();
      }
    },
  };
}
