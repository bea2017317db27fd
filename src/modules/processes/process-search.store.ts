/**
 * Where process search runs. The embedded store's searches run in the read pool's workers
 * (process-search.sqlite.ts does the SQL there), so the request thread only sends a compiled
 * query and receives a page.
 */
import type { SqliteReadPool } from '../../db/dialects/sqlite-read-pool.js';
import { pooledRead, type PagingSnapshot } from '../../db/pooled-read.js';
import { siblingModule } from '../../db/worker-threads.js';
import type { ProcessSearchRequest, ProcessSearchResult } from './process-search.plan.js';

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
