/**
 * Where process search runs: one implementation per database, chosen by the container. The
 * embedded store's (wiring/sqlite-read-stores.ts) compiles the query on the request thread and
 * runs it in the read pool's workers (process-search.sqlite.ts), which send back a page.
 */
import type { PagingSnapshot } from '../../query/search-request.js';
import type { ProcessSearchRequest, ProcessSearchResult } from './process-search.plan.js';

export interface ProcessSearchStore {
  /**
   * The exact number of matches, the page asked for in a total order, and the facets, all read
   * from one snapshot; pages of one paging key read the same snapshot while it is kept.
   */
  search(request: ProcessSearchRequest, paging: PagingSnapshot): Promise<ProcessSearchResult>;
}
