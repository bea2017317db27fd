/** Where binary search runs: in the read pool's workers (binary-search.sqlite.ts), like process search. */
import type { SqliteReadPool } from '../../db/dialects/sqlite-read-pool.js';
import { siblingModule } from '../../db/worker-threads.js';
import { pooledRead, type PagingSnapshot } from '../../db/pooled-read.js';
import type { BinarySearchRequest, BinarySearchResult } from './binary-search.plan.js';

export interface BinarySearchStore {
  /** The exact count, one page and the facets, read from one snapshot (the paging key's while it is kept). */
  search(request: BinarySearchRequest, paging: PagingSnapshot): Promise<BinarySearchResult>;
}

export const BINARY_SEARCH_HANDLER = { name: 'binary-search', url: siblingModule(import.meta.url, 'binary-search.sqlite') };

export class PooledBinarySearchStore implements BinarySearchStore {
  constructor(private readonly pool: SqliteReadPool) {}

  search(request: BinarySearchRequest, paging: PagingSnapshot): Promise<BinarySearchResult> {
    return pooledRead(this.pool, BINARY_SEARCH_HANDLER.name, request, paging);
  }
}
