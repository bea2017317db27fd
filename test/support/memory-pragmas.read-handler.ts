/** A read-pool handler for the memory-bound tests: the page cache and mapping its connection was given. */
import type Database from 'better-sqlite3';
import type { ReadResult } from '../../src/db/dialects/sqlite-read.messages.js';

export function run(connection: Database.Database): ReadResult<{ cacheSize: number; mmapSize: number }> {
  return {
    result: { cacheSize: connection.pragma('cache_size', { simple: true }) as number, mmapSize: connection.pragma('mmap_size', { simple: true }) as number },
    more: false,
  };
}
