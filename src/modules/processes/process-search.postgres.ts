/**
 * Process search on PostgreSQL (schema versions 2 and 6), behind the ProcessSearchStore interface:
 * the exact count, one page in a total order, and facets, read from one snapshot (postgres-read.ts).
 * The condition comes from the PostgreSQL compiler (query/compile/postgres.ts).
 *
 * Counts, fewest rows first: a query on host columns alone (an empty one among them) from
 * host_segment_counts; one on process names (and groups) from process_name_segment_counts, grouped
 * or not; one on other process fields per matching process from process_segment_counts; one that
 * is a single event field from its term rows alone (kept for the page); everything else by reading
 * the matching segments. Facets of host columns and process names come from the same tallies when
 * the condition allows. The page is read by one of the plans of process-search.pages.postgres.ts
 * (docs/adr/0027-postgres-search-plans.md). Unmounted partitions are detached tables, so no read
 * needs to leave them out. The pages of one search read the first page's snapshot
 * (postgres-paging.ts) on the server that answered it. Facets over the process's binary read its
 * metadata through jsonb.
 */
import type { SqlExecutor, SqlValue } from '../../db/database.js';
import type { PostgresDatabase } from '../../db/dialects/postgres.js';
import type { PostgresPagingSnapshots } from '../../db/dialects/postgres-paging.js';
import { readSnapshot, timedRead } from '../../db/dialects/postgres-read.js';
import { COUNTED_TYPES } from '../../ingest/prepare.js';
import { postgresMetadataExpr } from '../../query/compile/postgres-binary.js';
import { compilePostgresProcessCondition } from '../../query/compile/postgres.js';
import type { PagingSnapshot } from '../../query/search-request.js';
import { PROCESS_CONTEXT_COLUMNS, PROCESS_CONTEXT_JOINS } from './process-rows.js';
import { facetEntries, PROCESS_FACETS, type FacetRows, type ProcessFacetSpec } from './process-search.facets.js';
import {
  HOST_FACETS, readsOnlyColumns, readsOnlyHostColumns, type CompiledProcessSearch, type FacetCount, type ProcessRow, type ProcessSearchRequest,
  type ProcessSearchResult,
} from './process-search.plan.js';
import { bindDictionaryArrays } from './dictionary-arrays.postgres.js';
import { readPage, SEGMENTS_AND_PROCESSES, type ForcedPagePlan, type MatchesInHand } from './process-search.pages.postgres.js';
import type { ProcessSearchStore } from './process-search.store.js';

const ROW_COLUMNS = `s.id AS segment_row, s.segment_id, s.last_update_ms, s.last_server_update_ms, s.event_count,
  ${COUNTED_TYPES.map((type) => `s.${type}_count`).join(', ')}, ${PROCESS_CONTEXT_COLUMNS}`;
/** The page's rows look their process up by its primary key: on the id alone PostgreSQL has no index and scanned processes. */
const PAGE_ROWS = 'segments s JOIN processes p ON p.sensor_id = s.sensor_id AND p.id = s.process_id';
const PROCESSES_WITH_COUNTS = 'processes p JOIN process_segment_counts c ON c.sensor_id = p.sensor_id AND c.process_row = p.id';
/** Per-host segment counts under the process alias, for a condition on host columns alone (readsOnlyHostColumns). */
const HOSTS = 'host_segment_counts p';
/** Segments per process name (schema version 6), under the process alias, for a condition on these columns alone. */
const NAMES = 'process_name_segment_counts p';
const NAME_COLUMNS: ReadonlySet<string> = new Set(['sensor_id', 'group_id', 'process_name']);
/** Posted segment rows kept for the page, at most: as SQLite's one-pass cap (process-search.once.sqlite.ts). */
const POSTED_CAP = 150_000;
/** Matching processes kept for the page, at most: as SQLite's listed processes (process-search.sqlite.ts). */
const LISTED_CAP = 25_000;

export class PostgresProcessSearchStore implements ProcessSearchStore {
  /**
   * timeLimitMs: each statement's limit; a search past it is the client's QueryTimeoutError.
   * snapshots: where the pages of a search keep their snapshot; without, every page reads afresh.
   * forcedPagePlan: for tests, the page plan to use wherever it applies (process-search.pages.postgres.ts).
   */
  constructor(
    private readonly db: PostgresDatabase, private readonly timeLimitMs?: number, private readonly snapshots?: PostgresPagingSnapshots,
    private readonly forcedPagePlan?: ForcedPagePlan,
  ) {}

  async search({ predicate, ...request }: ProcessSearchRequest, paging: PagingSnapshot): Promise<ProcessSearchResult> {
    if (request.visibleGroups?.length === 0) return { total: 0, rows: [], facets: {} };
    const compiled: CompiledProcessSearch = { ...request, condition: compilePostgresProcessCondition(predicate) };
    if (!this.snapshots) return timedRead(() => readSnapshot(this.db, (reader) => new Search(reader, compiled, this.forcedPagePlan).execute(), this.timeLimitMs));
    return timedRead(() => this.snapshots!.read(paging, async (reader) => {
      const result = await new Search(reader, compiled, this.forcedPagePlan).execute();
      return { result, more: request.start + request.rows < result.total };
    }, this.timeLimitMs));
  }
}

class Search {
  private where: string;
  private params: SqlValue[];
  /** The terms of a condition that is one event field, once read from the dictionary. */
  private terms: string | undefined;
  /** The matches the count read, when not too many to hold, for the page's walk (process-search.pages.postgres.ts). */
  private inHand: MatchesInHand | undefined;

  constructor(private readonly tx: SqlExecutor, private readonly request: CompiledProcessSearch, private readonly forcedPagePlan?: ForcedPagePlan) {
    this.where = `(${request.condition.sql})${this.groups()}`;
    this.params = [...request.condition.params, ...(request.visibleGroups ?? [])];
  }

  /** Documents are counted per host (an empty query, or one on host columns alone): far fewer rows than processes. */
  private hostScoped(): boolean {
    return this.terms === undefined && !this.request.grouped && readsOnlyHostColumns(this.where, this.request.condition.readsSegments);
  }

  /** Documents are counted per process name (a query on names, or on groups alone): a few thousand rows. */
  private nameScoped(): boolean {
    return this.terms === undefined && readsOnlyColumns(this.where, this.request.condition.readsSegments, NAME_COLUMNS);
  }

  private groups(): string {
    const { visibleGroups } = this.request;
    return visibleGroups === null ? '' : ` AND p.group_id IN (${visibleGroups.map(() => '?').join(', ')})`;
  }

  async execute(): Promise<ProcessSearchResult> {
    const { request } = this;
    if (request.condition.postingTerms) await this.bindTerms(request.condition.postingTerms);
    else ({ where: this.where, params: this.params } = await bindDictionaryArrays(this.tx, this.where, this.params));
    const total = await this.count();
    const ids = request.rows > 0 && request.start < total ? await this.page(total) : [];
    const facets: ProcessSearchResult['facets'] = {};
    for (const field of request.facets) facets[field] = await this.facet(field);
    return { total, rows: await this.fetch(ids), facets };
  }

  /** Matching documents: segments, or processes when grouped. */
  private async count(): Promise<number> {
    const { grouped, condition, visibleGroups } = this.request;
    if (this.terms !== undefined && visibleGroups === null && !grouped) {
      // The whole condition is "segments with one of these terms": counted from the term rows alone,
      // which are kept for the page (the term rows are scattered over the table: read them once).
      const counted = await this.tx.get<{ n: number; rows: string | null }>(
        `SELECT count(*) AS n, CASE WHEN count(*) <= ? THEN string_agg(segment_row::text, ',') END AS rows
         FROM (SELECT DISTINCT sensor_id, segment_row FROM segment_terms WHERE terms && ?::text[]) posted`, [POSTED_CAP, this.terms],
      );
      if (counted!.rows !== null) this.inHand = { column: 'id', ids: `{${counted!.rows}}` };
      return counted!.n;
    }
    if (!grouped && !condition.readsSegments && !this.hostScoped() && !this.nameScoped()) {
      // Counted per matching process, whose ids come with the sum: the page's walk then tests each
      // segment's process against them instead of reading the process row (ADR 0027, second amendment).
      const counted = await this.tx.get<{ n: number; ids: string | null }>(
        `SELECT coalesce(sum(c.segments), 0) AS n, CASE WHEN count(*) <= ? THEN string_agg(p.id::text, ',') END AS ids
         FROM ${PROCESSES_WITH_COUNTS} WHERE ${this.where}`, [LISTED_CAP, ...this.params],
      );
      if (counted!.ids !== null) this.inHand = { column: 'process_id', ids: `{${counted!.ids}}` };
      return counted!.n;
    }
    const [from, n] = this.hostScoped() ? [HOSTS, 'coalesce(sum(p.segments), 0)'] : this.nameScoped() ? [NAMES, `coalesce(sum(p.${grouped ? 'processes' : 'segments'}), 0)::bigint`]
      : condition.readsSegments
      ? [SEGMENTS_AND_PROCESSES, grouped ? 'count(DISTINCT s.process_id)' : 'count(*)']
      : [PROCESSES_WITH_COUNTS, 'count(*)'];
    return (await this.tx.get<{ n: number }>(`SELECT ${n} AS n FROM ${from} WHERE ${this.where}`, this.params))!.n;
  }

  /**
   * Reads the terms a one-field condition stands for, and asks for them as a bound array: the
   * planner then sizes the lookup from the GIN index's statistics, where an array built by a
   * subquery left it guessing (and scanning segment_terms).
   */
  private async bindTerms(postingTerms: { sql: string; params: readonly SqlValue[] }): Promise<void> {
    const row = await this.tx.get<{ terms: string }>(`SELECT (${postingTerms.sql})::text AS terms`, postingTerms.params);
    this.terms = row!.terms;
    this.where = `(s.sensor_id, s.id) IN (SELECT sensor_id, segment_row FROM segment_terms WHERE terms && ?::text[])${this.groups()}`;
    this.params = [this.terms, ...(this.request.visibleGroups ?? [])];
  }

  private page(total: number): Promise<number[]> {
    return readPage(this.tx, {
      request: this.request, where: this.where, params: this.params, total,
      perProcess: this.terms === undefined && !this.request.condition.readsSegments, hostScoped: this.hostScoped(), inHand: this.inHand,
      forced: this.forcedPagePlan,
      visibleSegments: async () => {
        const { visibleGroups } = this.request;
        const groups = visibleGroups === null ? 'TRUE' : `p.group_id IN (${visibleGroups.map(() => '?').join(', ')})`;
        return (await this.tx.get<{ n: number }>(`SELECT coalesce(sum(p.segments), 0) AS n FROM ${HOSTS} WHERE ${groups}`, visibleGroups ?? []))!.n;
      },
    });
  }

  private async fetch(ids: readonly number[]): Promise<ProcessRow[]> {
    if (ids.length === 0) return [];
    const rows = await this.tx.all<ProcessRow>(
      `SELECT ${ROW_COLUMNS} FROM ${PAGE_ROWS} ${PROCESS_CONTEXT_JOINS} WHERE s.id IN (${ids.map(() => '?').join(', ')})`, ids,
    );
    const byRow = new Map(rows.map((row) => [row.segment_row, row]));
    return ids.map((id) => byRow.get(id)!);
  }

  private async facet(name: string): Promise<FacetCount[]> {
    const spec = PROCESS_FACETS.get(name);
    if (!spec || spec.level === 'none') return [];
    const rows = spec.level === 'event' ? await this.eventFacet(spec)
      : name === 'process_name' && this.nameScoped() ? await this.nameFacet()
        : await this.columnFacet(spec, HOST_FACETS.has(name) && this.hostScoped());
    const groups = spec.render === 'group' ? await this.tx.all<{ id: number; name: string }>('SELECT id, name FROM sensor_groups') : [];
    return facetEntries(spec, rows, this.request.nowMs, () => new Map(groups.map((g) => [g.id, g.name])));
  }

  /** perHost: the facet is of a host column and the condition host-scoped, so host_segment_counts answers it. */
  private async columnFacet(spec: Extract<ProcessFacetSpec, { level: 'process' | 'segment' }>, perHost: boolean): Promise<FacetRows> {
    const { condition, grouped } = this.request;
    const perProcess = spec.level === 'process' && !condition.readsSegments;
    const [from, n] = perHost ? [HOSTS, 'sum(p.segments)'] : perProcess
      ? [PROCESSES_WITH_COUNTS, grouped ? 'count(*)' : 'sum(c.segments)']
      : [SEGMENTS_AND_PROCESSES, grouped ? 'count(DISTINCT s.process_id)' : 'count(*)'];
    return this.rows(`SELECT ${postgresMetadataExpr(spec.expr)} AS name, ${n} AS n FROM ${from} WHERE ${this.where} GROUP BY 1`, this.params);
  }

  /** Process names from their tally; a name whose segments all went (a partition unmounted) keeps a row at 0. */
  private nameFacet(): Promise<FacetRows> {
    const n = this.request.grouped ? 'sum(p.processes)' : 'sum(p.segments)';
    return this.rows(`SELECT p.process_name AS name, ${n}::bigint AS n FROM ${NAMES} WHERE ${this.where} GROUP BY 1 HAVING ${n} > 0`, this.params);
  }

  /** An event field's values, from the term arrays of the matching segments. */
  private async eventFacet(spec: Extract<ProcessFacetSpec, { level: 'event' }>): Promise<FacetRows> {
    const n = this.request.grouped ? 'count(DISTINCT s.process_id)' : 'count(DISTINCT s.id)';
    return this.rows(
      `SELECT ${spec.value} AS name, ${n} AS n FROM ${SEGMENTS_AND_PROCESSES}
       JOIN segment_terms st ON st.sensor_id = s.sensor_id AND st.segment_row = s.id AND st.segment_id = s.segment_id
       CROSS JOIN LATERAL (SELECT substr(term, ?) AS value FROM unnest(st.terms) AS term WHERE term LIKE ?) t
       WHERE ${this.where} GROUP BY 1`,
      [spec.field.length + 2, `${spec.field.replace(/_/gu, '\\_')}:%`, ...this.params],
    );
  }

  private async rows(sql: string, params: readonly SqlValue[]): Promise<FacetRows> {
    return (await this.tx.all<{ name: string | number | null; n: number }>(sql, params)).map((r) => [r.name, r.n]);
  }
}
