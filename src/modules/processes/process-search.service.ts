/**
 * Process search (reference core §3): a request's parameters become one compiled query, a sort,
 * a page and facets; the store answers them inside one snapshot; the reply is Carbon Black's
 * envelope. The caller sees only processes of groups they may view.
 *
 * Paging: successive pages of one search (same user, same parameters but start and rows) read the
 * snapshot the first page took, so a client paging through while events arrive gets every match
 * once; a request with start=0 starts over on fresh data.
 */
import { performance } from 'node:perf_hooks';
import { InvalidRequestError } from '../../domain/errors.js';
import { canViewGroup, type Principal } from '../../domain/permissions.js';
import { allOf, type FieldPredicate, type Predicate } from '../../query/analysis.js';
import { QueryError, toDomainError } from '../../query/errors.js';
import { analyzeParams } from '../../query/params.js';
import {
  facetEntry, facetParams, pageParams, pagingKey, queryTerms, scalarParam, sortParam, timeParam,
} from '../../query/search-request.js';
import type { DocumentTags, SegmentTagsSource } from '../../detect/document-tags.js';
import { wireTags } from '../../detect/document-tags.wire.js';
import { processDocument, spanOf } from './process-document.js';
import { processRecord, segmentRecord } from './process-rows.js';
import { PROCESS_FACETS } from './process-search.facets.js';
import { FACETS, SORTS, type ProcessRow, type ProcessSearchRequest, type SortKey } from './process-search.plan.js';
import type { ProcessSearchDocument, ProcessSearchReply, SearchParams } from './process-search.schemas.js';
import type { ProcessSearchStore } from './process-search.store.js';

const SORT_KEYS = Object.keys(SORTS) as SortKey[];
const FACET_FIELDS = [...PROCESS_FACETS.keys()];
/** facet=true without facet.field: the facets Carbon Black's process search listed. */
const DEFAULT_FACETS = Object.keys(FACETS).filter((field) => field !== 'os_type');

export class ProcessSearchService {
  constructor(
    private readonly store: ProcessSearchStore,
    private readonly tags: SegmentTagsSource = async () => new Map(),
    private readonly now: () => number = Date.now,
    private readonly investigations: TaggedInvestigationsSource = async () => new Map(),
  ) {}

  async search(actor: Principal, params: SearchParams): Promise<ProcessSearchReply> {
    const began = performance.now();
    const nowMs = this.now();
    const { start, rows } = pageParams(params);
    const request: ProcessSearchRequest = {
      predicate: queryPredicate(params, nowMs),
      visibleGroups: actor.globalAdmin ? null : [...actor.groupAccess.keys()].filter((group) => canViewGroup(actor, group)),
      sort: sortParam(params, SORT_KEYS, { key: 'last_update', descending: true }),
      start,
      rows,
      grouped: groupParam(params),
      facets: facetParams(params, FACET_FIELDS, DEFAULT_FACETS),
      nowMs,
    };
    const result = await this.store.search(request, { key: pagingKey('process', actor.userId, params), fresh: start === 0 });
    const facets: ProcessSearchReply['facets'] = {};
    for (const [field, counts] of Object.entries(result.facets)) {
      const lower = field === 'hostname' || field === 'group';
      facets[field] = counts.map((c) => facetEntry(lower ? c.name.toLowerCase() : c.name, c.count, result.total));
    }
    const tags = result.rows.length > 0 ? await this.tags(result.rows.map((row) => row.segment_row)) : new Map<number, DocumentTags>();
    const results = result.rows.map((row) => searchDocument(row, tags.get(row.segment_row)));
    return {
      terms: queryTerms(params),
      results,
      elapsed: (performance.now() - began) / 1000,
      comprehensive_search: true,
      all_segments: true,
      total_results: result.total,
      highlights: [],
      facets,
      tagged_pids: await this.taggedPids(results),
      start,
      incomplete_results: false,
      filtered: {},
    };
  }

  /** tagged_pids: each result document's unique_id with the investigations its process was tagged into. */
  private async taggedPids(results: readonly ProcessSearchDocument[]): Promise<ProcessSearchReply['tagged_pids']> {
    if (results.length === 0) return {};
    const tagged = await this.investigations([...new Set(results.map((document) => document.id))]);
    const pids: ProcessSearchReply['tagged_pids'] = {};
    for (const document of results) {
      const investigations = tagged.get(document.id);
      if (investigations) pids[document.unique_id] = investigations;
    }
    return pids;
  }
}

/** The investigations of processes that events were tagged on, by process id (without segment). */
export type TaggedInvestigationsSource = (processIds: readonly string[]) => Promise<Map<string, { name: string; id: number }[]>>;

/** A matching segment as process search shows it: the process document, and the watchlists and feeds that hit it. */
function searchDocument(row: ProcessRow, tags: DocumentTags | undefined): ProcessSearchDocument {
  return { ...processDocument(processRecord(row), spanOf(segmentRecord(row, row.segment_row))), ...wireTags(tags, 'process') };
}

/** q, cb.q.*, cb.fq.* and the cb.min/max_last_(server_)update bounds as one predicate. */
function queryPredicate(params: SearchParams, now: number): Predicate {
  let analyzed: Predicate;
  try {
    analyzed = analyzeParams(params, { index: 'process', now }).predicate;
  } catch (error) {
    throw error instanceof QueryError ? toDomainError(error) : error;
  }
  const bounds: Predicate[] = [];
  for (const field of ['last_update', 'last_server_update'] as const) {
    const min = timeParam(params, `cb.min_${field}`, now);
    const max = timeParam(params, `cb.max_${field}`, now);
    if (min !== undefined || max !== undefined) bounds.push(timeBound(field, min ?? null, max === undefined ? null : max + 1));
  }
  return allOf([analyzed, ...bounds]);
}

function timeBound(field: string, from: number | null, to: number | null): FieldPredicate {
  return { op: 'field', field, type: 'datetime', source: 'process', match: { kind: 'time_range', from, to }, span: { start: 0, end: 0 } };
}

/** cb.group=id; Carbon Black groups by nothing else. */
function groupParam(params: SearchParams): boolean {
  const value = scalarParam(params, 'cb.group')?.trim();
  if (value === undefined || value === '') return false;
  if (value !== 'id') throw new InvalidRequestError('cb.group may only be "id" (one document per process)');
  return true;
}

