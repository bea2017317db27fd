/**
 * Where binary search runs: one implementation per database, chosen by the container (the
 * embedded store's runs in the read pool's workers, binary-search.sqlite.ts, like process search).
 */
import type { PagingSnapshot } from '../../query/search-request.js';
import type { BinarySearchRequest, BinarySearchResult } from './binary-search.plan.js';

export interface BinarySearchStore {
  /** The exact count, one page and the facets, read from one snapshot (the paging key's while it is kept). */
  search(request: BinarySearchRequest, paging: PagingSnapshot): Promise<BinarySearchResult>;
}
