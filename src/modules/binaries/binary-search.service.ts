/**
 * Binary search (reference core §5.2): the query over binary fields, paging, sort and facets, in
 * the envelope of the real server. A caller who may not see every group finds only binaries seen
 * on sensors of groups they may view, with only those sightings (as the summary route does).
 */
import { performance } from 'node:perf_hooks';
import type { BinaryTagsSource } from '../../detect/document-tags.js';
import { canViewGroup, type Principal } from '../../domain/permissions.js';
import { QueryError, toDomainError } from '../../query/errors.js';
import { analyzeParams } from '../../query/params.js';
import { facetEntry, facetParams, pageParams, pagingKey, queryTerms, sortParam } from '../../query/search-request.js';
import type { SearchParams } from '../processes/process-search.schemas.js';
import { binaryDocument } from './binary-search.document.js';
import { BINARY_FACET_NAMES, BINARY_FACETS, BINARY_SORTS, type BinarySearchRequest, type BinarySortKey } from './binary-search.plan.js';
import type { BinarySearchReply } from './binary-search.schemas.js';
import type { BinarySearchStore } from './binary-search.store.js';

const SORT_KEYS = Object.keys(BINARY_SORTS) as BinarySortKey[];
/** facet=true without facet.field: the facets Carbon Black's binary search listed. */
const DEFAULT_FACETS = Object.keys(BINARY_FACETS);

export class BinarySearchService {
  constructor(
    private readonly store: BinarySearchStore,
    private readonly tags: BinaryTagsSource = async () => new Map(),
    private readonly now: () => number = Date.now,
  ) {}

  async search(actor: Principal, params: SearchParams): Promise<BinarySearchReply> {
    const began = performance.now();
    const nowMs = this.now();
    const visibleGroups = actor.globalAdmin ? null : [...actor.groupAccess.keys()].filter((group) => canViewGroup(actor, group));
    let predicate;
    try {
      predicate = analyzeParams(params, { index: 'binary', now: nowMs }).predicate;
    } catch (error) {
      throw error instanceof QueryError ? toDomainError(error) : error;
    }
    const { start, rows } = pageParams(params);
    const request: BinarySearchRequest = {
      predicate,
      visibleGroups,
      sort: sortParam(params, SORT_KEYS, { key: 'server_added_timestamp', descending: true }),
      start,
      rows,
      facets: facetParams(params, BINARY_FACET_NAMES, DEFAULT_FACETS),
      nowMs,
    };
    const result = await this.store.search(request, { key: pagingKey('binary', actor.userId, params), fresh: start === 0 });
    const tags = result.rows.length > 0 ? await this.tags(result.rows.map((row) => row.md5.toLowerCase())) : new Map();
    const facets: BinarySearchReply['facets'] = {};
    for (const [field, counts] of Object.entries(result.facets)) facets[field] = counts.map((c) => facetEntry(c.name, c.count, result.total));
    return {
      terms: queryTerms(params),
      total_results: result.total,
      highlights: [],
      facets,
      results: result.rows.map((row) => binaryDocument(row, tags.get(row.md5.toLowerCase()))),
      elapsed: (performance.now() - began) / 1000,
      start,
    };
  }
}
