/** The embedded store's event chunks for the forwarder: rows of segment_chunks, bytes in the partitions' chunk files. */
import type { SqliteDatabase } from '../../db/dialects/sqlite.js';
import { ChunkFileReader } from '../processes/chunk-files.sqlite.js';
import type { ChunkLoader, ChunkRef } from './forwarder-raw.js';

type SqliteChunkRef = ChunkRef & { file_id: number; byte_offset: number; byte_length: number };

/**
 * A read of the span around a file's chunks is taken when it is at most this many times their
 * bytes: chunks come in the order the writer appended them, so a batch's lie side by side.
 */
const MOST_SPAN_PER_BYTE = 2;

export function sqliteChunkLoader(db: SqliteDatabase): ChunkLoader<SqliteChunkRef> {
  return {
    table: 'segment_chunks',
    locator: 'c.file_id, c.byte_offset, c.byte_length',
    joins: 'JOIN segments s ON s.id = c.segment_row JOIN processes p ON p.id = s.process_id',
    load(refs) {
      // From the page cache: one read per file for a batch's chunks, which views of it then hold.
      const files = new ChunkFileReader(db.connection.name);
      try {
        const loaded = new Array<Buffer | undefined>(refs.length);
        for (const [fileId, indexes] of byFile(refs)) {
          let low = Infinity;
          let high = 0;
          let bytes = 0;
          for (const i of indexes) {
            const { byte_offset: offset, byte_length: length } = refs[i]!;
            low = Math.min(low, offset);
            high = Math.max(high, offset + length);
            bytes += length;
          }
          if (high - low > MOST_SPAN_PER_BYTE * bytes) {
            for (const i of indexes) loaded[i] = files.read(fileId, refs[i]!.byte_offset, refs[i]!.byte_length);
            continue;
          }
          // A file cut short (a partition deleted meanwhile, a power loss) lacks the chunks past its end.
          const span = files.readUpTo(fileId, low, high - low);
          for (const i of indexes) {
            const start = refs[i]!.byte_offset - low;
            const end = start + refs[i]!.byte_length;
            loaded[i] = span !== undefined && end <= span.length ? span.subarray(start, end) : undefined;
          }
        }
        return loaded;
      } finally {
        files.close();
      }
    },
  };
}

function byFile(refs: readonly SqliteChunkRef[]): Map<number, number[]> {
  const files = new Map<number, number[]>();
  refs.forEach((ref, i) => {
    const indexes = files.get(ref.file_id);
    if (indexes === undefined) files.set(ref.file_id, [i]);
    else indexes.push(i);
  });
  return files;
}
