/**
 * What a process search asks the store for, and the sort keys and facet fields it may name. Both
 * sides of the read pool use these: the service to validate a request, the worker to build SQL.
 */
import type { Predicate } from '../../query/analysis.js';
import type { SqlParam } from '../../query/compile/fragment.js';
import type { ProcessContextColumns, SegmentColumns } from './process-rows.js';

export interface ProcessSearchRequest {
  /** The analyzed query; each store compiles it for its database. */
  predicate: Predicate;
  /** Groups whose processes the caller may see; null: all (a global administrator). */
  visibleGroups: number[] | null;
  sort: { key: SortKey; descending: boolean };
  start: number;
  rows: number;
  /** cb.group=id: one document per process, its first segment in the sort order. */
  grouped: boolean;
  /** Facet names (process-search.facets.ts). */
  facets: string[];
  /** The present, for the `start` facet's last 30 days. */
  nowMs: number;
  /**
   * The one-pass plans' caps (process-search.once.sqlite.ts) and the term walk's bound
   * (process-search.term.sqlite.ts) when not the defaults: tests cross them on small data.
   */
  onePassCaps?: { collected: number; posted: number; termWalk?: number };
}

/**
 * A request with its query compiled for one database: as the embedded store's read worker runs it
 * (process-search.sqlite.ts, SQLite's compiler) and as PostgreSQL's store does (PostgreSQL's).
 */
export interface CompiledProcessSearch extends Omit<ProcessSearchRequest, 'predicate'> {
  /** The compiled query (src/query/compile/sqlite.ts or postgres.ts) over `s` (segments) and `p` (processes). */
  condition: {
    sql: string;
    params: readonly SqlParam[];
    readsSegments: boolean;
    /** The whole condition is the segments posted under these terms (CompiledCondition.postingTerms). */
    postingTerms?: { sql: string; params: readonly SqlParam[] };
  };
}

export interface ProcessSearchResult {
  /** Matching documents: segments, or processes when grouped. */
  total: number;
  rows: ProcessRow[];
  facets: Record<string, FacetCount[]>;
}

export interface FacetCount {
  name: string;
  count: number;
}

/** A segment with its process, as the store reads it. */
export interface ProcessRow extends ProcessContextColumns, SegmentColumns {
  segment_row: number;
}

export interface SortSpec {
  /** Where the key lives: per segment, or per process (then segments of a process follow by segment id). */
  level: 'segment' | 'process';
  column: string;
  /** An index whose order is the key's (with the row id after it), for reading matches in order. */
  index?: string;
}

export const SORTS = {
  last_update: { level: 'segment', column: 's.last_update_ms', index: 'segments_by_last_update' },
  last_server_update: { level: 'segment', column: 's.last_server_update_ms', index: 'segments_by_last_server_update' },
  segment_id: { level: 'segment', column: 's.segment_id' },
  start: { level: 'process', column: 'p.start_ms', index: 'processes_by_start' },
  process_name: { level: 'process', column: 'p.process_name', index: 'processes_by_name' },
  hostname: { level: 'process', column: 'p.hostname', index: 'processes_by_hostname' },
  username: { level: 'process', column: 'p.username', index: 'processes_by_username' },
  parent_name: { level: 'process', column: 'p.parent_name', index: 'processes_by_parent_name' },
  process_md5: { level: 'process', column: 'p.md5', index: 'processes_by_md5' },
  path: { level: 'process', column: 'p.path' },
  process_pid: { level: 'process', column: 'p.pid' },
  sensor_id: { level: 'process', column: 'p.sensor_id' },
  filemod_count: { level: 'segment', column: 's.filemod_count' },
  regmod_count: { level: 'segment', column: 's.regmod_count' },
  netconn_count: { level: 'segment', column: 's.netconn_count' },
  modload_count: { level: 'segment', column: 's.modload_count' },
  childproc_count: { level: 'segment', column: 's.childproc_count' },
  crossproc_count: { level: 'segment', column: 's.crossproc_count' },
} as const satisfies Record<string, SortSpec>;

export type SortKey = keyof typeof SORTS;

export interface FacetSpec {
  /** SQL over `p`; every facet of a process search is a process field. */
  expr: string;
  /** Time facets list their buckets in time order; the others by count. */
  order: 'count' | 'name';
  /** Only buckets whose number is at least this far before the present's (the `start` facet's 30 days). */
  recentBuckets?: number;
}

/** Reference core §3.2's process facets, plus os_type; hour and day are UTC (the sensor's zone is unknown). */
export const FACETS = {
  process_md5: { expr: 'p.md5', order: 'count' },
  hostname: { expr: 'p.hostname', order: 'count' },
  group: { expr: 'p.group_id', order: 'count' },
  path_full: { expr: 'p.path', order: 'count' },
  parent_name: { expr: 'p.parent_name', order: 'count' },
  process_name: { expr: 'p.process_name', order: 'count' },
  host_type: { expr: 'p.host_type', order: 'count' },
  os_type: { expr: 'p.os_type', order: 'count' },
  username_full: { expr: 'p.username', order: 'count' },
  hour_of_day: { expr: '(p.start_ms / 3600000) % 24', order: 'name' },
  // 1970-01-01 was a Thursday: day 0 is Monday, as Python's weekday() counts.
  day_of_week: { expr: '(p.start_ms / 86400000 + 3) % 7', order: 'name' },
  start: { expr: 'p.start_ms / 86400000', order: 'name', recentBuckets: 30 },
} as const satisfies Record<string, FacetSpec>;

export type FacetField = keyof typeof FACETS;

/** Entries per facet, as Carbon Black's "top 200". */
export const FACET_LIMIT = 200;

/** The process columns host_segment_counts repeats. */
export const HOST_COLUMNS: ReadonlySet<string> = new Set(['sensor_id', 'group_id', 'hostname', 'host_type', 'os_type']);
/** Facets of those columns, which host_segment_counts answers for a host-scoped query. */
export const HOST_FACETS: ReadonlySet<string> = new Set<FacetField>(['hostname', 'group', 'host_type', 'os_type']);

/**
 * Whether a condition reads nothing but what host_segment_counts keeps per host (an empty query
 * among them): its documents are then counted from there. The compiled text holds only the
 * compiler's identifiers (values are parameters), so its column references can be read off it.
 */
export function readsOnlyHostColumns(where: string, readsSegments: boolean): boolean {
  return readsOnlyColumns(where, readsSegments, HOST_COLUMNS);
}

/** Whether a condition reads no process column but these (and no segment column): a tally keyed by them answers it. */
export function readsOnlyColumns(where: string, readsSegments: boolean, columns: ReadonlySet<string>): boolean {
  return !readsSegments && [...where.matchAll(/\bp\.(\w+)/gu)].every((m) => columns.has(m[1]!));
}
