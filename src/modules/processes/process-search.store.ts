/**
 * Where process search runs. The embedded store's searches run in the read pool's workers
 * (process-search.sqlite.ts does the SQL there), so the request thread only sends a compiled
 * query and receives a page.
 */
import type { SqliteReadPool } from '../../db/dialects/sqlite-read-pool.js';
import { ReadTimeout } from '../../db/errors.js';
import { siblingModule } from '../../db/worker-threads.js';
import { QueryTimeoutError } from '../../domain/errors.js';
import type { ProcessSearchRequest, ProcessSearchResult } from './process-search.plan.js';

export interface PagingSnapshot {
  /** The same key on every page of one search. */
  key: string;
  /** Take a new snapshot (the first page) rather than read the one kept for the key. */
  fresh: boolean;
}

export interface ProcessSearchStore {
  /**
   * The exact number of matches, the page asked for in a total order, and the facets, all read
   * from one snapshot; pages of one paging key read the same snapshot while it is kept.
   */
  search(request: ProcessSearchRequest, paging: PagingSnapshot): Promise<ProcessSearchResult>;
}

/** The read pool handler module for process search, and its name in the pool. */
export const PROCESS_SEARCH_HANDLER = { name: 'process-search', url: siblingModule(import.meta.url, 'process-search.sqlite') };

export class PooledProcessSearchStore implements ProcessSearchStore {
  constructor(private readonly pool: SqliteReadPool) {}

  search(request: ProcessSearchRequest, paging: PagingSnapshot): Promise<ProcessSearchResult> {
    return pooledRead(this.pool, PROCESS_SEARCH_HANDLER.name, request, paging);
  }
}

/** A job on the read pool; one that outlives the pool's time limit is the client's QueryTimeoutError. */
export async function pooledRead<T>(pool: SqliteReadPool, handler: string, request: unknown, paging?: PagingSnapshot): Promise<T> {
  try {
    return await pool.run<T>(handler, request, paging);
  } catch (error) {
    throw error instanceof ReadTimeout ? new QueryTimeoutError(error.limitMs) : error;
  }
}
