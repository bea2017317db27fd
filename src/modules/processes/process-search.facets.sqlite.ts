/**
 * The facets of a process search on the embedded store, read in the search's transaction after its
 * count and page (process-search.sqlite.ts): over every document from the tally or the per-host
 * counts, otherwise from the matches as the count's plan left the condition.
 */
import type Database from 'better-sqlite3';
import { cachedStatement } from '../../db/dialects/sqlite-statements.js';
import { facetEntries, PROCESS_FACETS, tallyOf, type FacetRows, type ProcessFacetSpec } from './process-search.facets.js';
import { HOST_FACETS, type CompiledProcessSearch, type FacetCount, type ProcessSearchResult } from './process-search.plan.js';
import type { FacetTally } from './process-search.tally.sqlite.js';

export const SEGMENTS_AND_PROCESSES = 'segments s JOIN processes p ON p.id = s.process_id';
export const PROCESSES_WITH_COUNTS = 'processes p JOIN process_segment_counts c ON c.process_row = p.id';

/** The condition as the search left it after counting. */
export interface FacetInput {
  request: CompiledProcessSearch;
  /** The condition over `p` (and `s` when it reads segments), with its parameters. */
  where: string;
  params: readonly unknown[];
  /** The condition reads only what host_segment_counts keeps per host. */
  hostScoped: boolean;
  /** ` AND s.id NOT BETWEEN …` for unmounted partitions, or nothing. */
  visible: string;
  /** The condition over segments, with the join to processes it needs. */
  segments: { from: string; where: string };
}

export function facetsOf(db: Database.Database, tally: FacetTally, input: FacetInput): ProcessSearchResult['facets'] {
  const facets: ProcessSearchResult['facets'] = {};
  for (const field of input.request.facets) facets[field] = facet(db, tally, input, field);
  return facets;
}

function facet(db: Database.Database, tally: FacetTally, input: FacetInput, name: string): FacetCount[] {
  const spec = PROCESS_FACETS.get(name);
  if (!spec || spec.level === 'none') return [];
  const counts = spec.level === 'process' ? processFacetCounts(db, tally, input, name, spec.expr) : segmentFacetCounts(db, input, spec);
  return facetEntries(spec, counts, input.request.nowMs, () => groupNames(db));
}

/** A facet over a process column: from the tally, the per-host counts, or the matches. */
function processFacetCounts(db: Database.Database, tally: FacetTally, input: FacetInput, name: string, expr: string): FacetRows {
  const { condition, grouped, visibleGroups } = input.request;
  const tallied = tallyOf(name);
  const host = tallied !== undefined && HOST_FACETS.has(tallied);
  const fromTally = condition.sql === '1' && !grouped && tallied && !host ? tally.read(db, tallied, visibleGroups) : undefined;
  if (fromTally) return [...fromTally];
  if (input.hostScoped && !grouped && host) {
    return cachedStatement(db, `SELECT ${expr} AS name, sum(segments) AS n FROM host_segment_counts p WHERE ${input.where} GROUP BY 1`)
      .raw().all(...input.params) as FacetRows;
  }
  const [from, n, visible] = condition.readsSegments
    ? [SEGMENTS_AND_PROCESSES, grouped ? 'count(DISTINCT s.process_id)' : 'count(*)', input.visible]
    : [PROCESSES_WITH_COUNTS, grouped ? 'count(*)' : 'sum(c.segments)', ''];
  return cachedStatement(db, `SELECT ${expr} AS name, ${n} AS n FROM ${from} WHERE ${input.where}${visible} GROUP BY 1`)
    .raw().all(...input.params) as FacetRows;
}

/** A facet over a segment column or an event term field: read from the matching segments. */
function segmentFacetCounts(db: Database.Database, input: FacetInput, spec: Extract<ProcessFacetSpec, { level: 'segment' | 'event' }>): FacetRows {
  const { from, where } = input.segments;
  const n = input.request.grouped ? 'count(DISTINCT s.process_id)' : spec.level === 'event' ? 'count(DISTINCT s.id)' : 'count(*)';
  if (spec.level === 'segment') {
    return cachedStatement(db, `SELECT ${spec.expr} AS name, ${n} AS n FROM ${from} WHERE ${where} GROUP BY 1`).raw().all(...input.params) as FacetRows;
  }
  return cachedStatement(db,
    `SELECT ${spec.value} AS name, ${n} AS n FROM ${from} JOIN event_postings e ON e.segment_row = s.id JOIN event_terms t ON t.id = e.term_id
     WHERE ${where} AND t.field = ? GROUP BY 1`,
  ).raw().all(...input.params, spec.field) as FacetRows;
}

function groupNames(db: Database.Database): Map<number, string> {
  return new Map(cachedStatement(db, 'SELECT id, name FROM sensor_groups').raw().all() as [number, string][]);
}
