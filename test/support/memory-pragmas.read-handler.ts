/**
 * A read-pool handler for the memory-bound tests: the page cache and mapping its connection was
 * given, the heap limit V8 enforces in its thread, and the page cache that the connection of this
 * thread's previous job has now that the job is over.
 */
import type Database from 'better-sqlite3';
import { getHeapStatistics } from 'node:v8';
import type { ReadResult } from '../../src/db/dialects/sqlite-read.messages.js';

export interface MemoryPragmas {
  cacheSize: number;
  mmapSize: number;
  heapSizeLimit: number;
  previousCacheSize: number | undefined;
}

let previous: Database.Database | undefined;

export function run(connection: Database.Database, request: { more?: boolean }): ReadResult<MemoryPragmas> {
  const cacheSize = (db: Database.Database) => db.pragma('cache_size', { simple: true }) as number;
  const result = {
    cacheSize: cacheSize(connection), mmapSize: connection.pragma('mmap_size', { simple: true }) as number,
    heapSizeLimit: getHeapStatistics().heap_size_limit, previousCacheSize: previous && cacheSize(previous),
  };
  previous = connection;
  return { result, more: request.more === true };
}
