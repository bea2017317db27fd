/**
 * Running a read on the SQLite read pool as a store method. Every pooled store (process and
 * binary search, event pages, document tags, the dashboard) needs the same timeout translation,
 * so it lives beside the pool rather than in any one module.
 */
import { QueryTimeoutError } from '../domain/errors.js';
import type { SqliteReadPool } from './dialects/sqlite-read-pool.js';
import { ReadTimeout } from './errors.js';

export interface PagingSnapshot {
  /** The same key on every page of one search. */
  key: string;
  /** Take a new snapshot (the first page) rather than read the one kept for the key. */
  fresh: boolean;
}

/** A job on the read pool; one that outlives the pool's time limit is the client's QueryTimeoutError. */
export async function pooledRead<T>(pool: SqliteReadPool, handler: string, request: unknown, paging?: PagingSnapshot): Promise<T> {
  try {
    return await pool.run<T>(handler, request, paging);
  } catch (error) {
    throw error instanceof ReadTimeout ? new QueryTimeoutError(error.limitMs) : error;
  }
}
