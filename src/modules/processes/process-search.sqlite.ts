/**
 * Process search on the embedded store, run in a read worker (a ReadHandler) inside one read
 * transaction: the exact count, one page in a total order, and facets.
 *
 * Counting: a query on process fields alone counts per matching process from
 * process_segment_counts; one that reads segments counts segments, collecting them with their
 * sort key when there are few (process-search.once.sqlite.ts: the page is then cut from them). Paging
 * otherwise: with the count known, the cheaper of two plans — read matches in sort order through
 * the sort key's index until the page is full (cheap when matches are common), or collect every
 * match and sort it (cheap when rare). Every order ends in a unique tiebreaker: pages never overlap.
 * Segments of unmounted partitions are left out of every read of segments (hidden-segments.ts);
 * the per-process and per-host counts already leave them out.
 */
import type Database from 'better-sqlite3';
import type { ReadResult } from '../../db/dialects/sqlite-read.messages.js';
import { cachedStatement } from '../../db/dialects/sqlite-statements.js';
import { COUNTED_TYPES } from '../../ingest/prepare.js';
import { SQLITE_FUNCTIONS } from '../../query/compile/sqlite-functions.js';
import { HIDDEN_RANGES_SQL, toRanges, visibleRows, type RowRange } from '../partitions/hidden-segments.js';
import { PROCESS_CONTEXT_COLUMNS, PROCESS_CONTEXT_JOINS } from './process-rows.js';
import {
  collectMatches, MAX_COLLECTED, MAX_POSTED, pageOfCollected, postedSegments, registerPostedFunction, withPosted, type Collected, type Posted,
} from './process-search.once.sqlite.js';
import { FacetTally } from './process-search.tally.sqlite.js';
import { countedTerm, TERM_CONDITION, walkTermPage } from './process-search.term.sqlite.js';
import { facetsOf, PROCESSES_WITH_COUNTS, SEGMENTS_AND_PROCESSES } from './process-search.facets.sqlite.js';
import {
  FACETS, HOST_FACETS, readsOnlyHostColumns, SORTS, type FacetField, type ProcessRow, type CompiledProcessSearch,
  type ProcessSearchResult, type SortSpec,
} from './process-search.plan.js';

export function setup(connection: Database.Database): void {
  for (const [name, fn] of Object.entries(SQLITE_FUNCTIONS)) connection.function(name, { deterministic: true }, fn);
  registerPostedFunction(connection);
}

const tally = new FacetTally();

export function run(connection: Database.Database, request: CompiledProcessSearch): ReadResult<ProcessSearchResult> {
  return new ProcessSearch(connection, request).execute();
}

const ROW_COLUMNS = `s.id AS segment_row, s.segment_id, s.last_update_ms, s.last_server_update_ms, s.event_count,
  ${COUNTED_TYPES.map((type) => `s.${type}_count`).join(', ')}, ${PROCESS_CONTEXT_COLUMNS}`;

/** Up to this many matching processes are listed once and their segments read directly after. */
const MAX_LISTED = 25_000;
/**
 * Listed processes' segments up to this many are sorted rather than walked in last_update order:
 * sorting reads them from the (process, last update) index alone (~0.15 µs each), where the walk
 * reads a segment row for every segment it passes, matching or not (196 ms against 2.4 ms for
 * 17,029 segments of 1,394 processes in 1.7M, bench/RESULTS.md).
 */
const MAX_LISTED_SORTED = 100_000;

/** The facets over every document that the tally answers (the host facets come from host_segment_counts). */
const TALLIED = (Object.keys(FACETS) as FacetField[]).filter((field) => !HOST_FACETS.has(field));

/**
 * At the worker's start: the tallies, so that no facet request pays for building one. The most
 * asked-for facet first, alone (half the time of all of them), then the others in one pass.
 */
export function* warm(connection: Database.Database): Generator<void, void, void> {
  yield* iterable(tally.warm(connection, ['process_name']));
  yield* iterable(tally.warm(connection, TALLIED.filter((field) => field !== 'process_name')));
}

const iterable = <T>(iterator: Iterator<T>): Iterable<T> => ({ [Symbol.iterator]: () => iterator });

class ProcessSearch {
  private where: string;
  private params: unknown[];
  private readonly sort: SortSpec;
  /**
   * The condition reads no process column but the id (and the caller may see every group): it can
   * then run on segments or on process_segment_counts alone, without reading process rows.
   */
  private withoutProcessRows: boolean;
  /** The condition reads only what host_segment_counts keeps per host: count documents from there. */
  private readonly hostScoped: boolean;
  private readonly hidden: RowRange[];
  /** ` AND s.id NOT BETWEEN …` for unmounted partitions, or nothing. */
  private readonly visible: string;
  /** What counting read, when it read the matches themselves: with their sort keys, or posted segments. */
  private collected: Collected | undefined;
  private posted: Posted | undefined;
  /** The one term the condition is, when counting read its kept count (process-search.term.sqlite.ts). */
  private term: number | undefined;
  /** The condition became a list of processes (count read them from process_segment_counts). */
  private listed = false;

  constructor(private readonly db: Database.Database, private readonly request: CompiledProcessSearch) {
    const { condition, visibleGroups } = request;
    this.where = visibleGroups === null ? `(${condition.sql})` : `(${condition.sql}) AND p.group_id IN (SELECT value FROM json_each(?))`;
    this.params = visibleGroups === null ? [...condition.params] : [...condition.params, JSON.stringify(visibleGroups)];
    this.sort = SORTS[request.sort.key];
    // The compiled text holds only the compiler's identifiers (values are parameters), so its
    // column references can be read off it and p.id renamed safely.
    const columns = new Set([...this.where.matchAll(/\bp\.(\w+)/gu)].map((m) => m[1]!));
    this.withoutProcessRows = [...columns].every((column) => column === 'id');
    this.hostScoped = readsOnlyHostColumns(this.where, condition.readsSegments);
    this.hidden = toRanges(cachedStatement(db, HIDDEN_RANGES_SQL).all() as { first_row: number; last_row: number }[]);
    this.visible = visibleRows('s.id', this.hidden);
  }

  /** The condition over `segments s` alone (withoutProcessRows) or joined to its process. */
  private segmentsFrom(indexed?: string): { from: string; where: string } {
    const segments = indexed ? `segments s INDEXED BY ${indexed}` : 'segments s';
    return this.withoutProcessRows
      ? { from: segments, where: this.where.replace(/\bp\.id\b/gu, 's.process_id') + this.visible }
      : { from: indexed ? `${segments} CROSS JOIN processes p ON p.id = s.process_id` : SEGMENTS_AND_PROCESSES, where: this.where + this.visible };
  }

  execute(): ReadResult<ProcessSearchResult> {
    const { request } = this;
    if (request.visibleGroups?.length === 0) return { result: { total: 0, rows: [], facets: {} }, more: false };
    const { documents, segments } = this.count();
    const ids = request.rows > 0 && request.start < documents ? this.page(segments) : [];
    const facets = facetsOf(this.db, tally, {
      request, where: this.where, params: this.params, hostScoped: this.hostScoped, visible: this.visible, segments: this.segmentsFrom(),
    });
    return { result: { total: documents, rows: this.fetch(ids), facets }, more: request.start + request.rows < documents };
  }

  /** Matching documents (segments, or processes when grouped) and matching segments. */
  private count(): { documents: number; segments: number } {
    const { grouped, condition, visibleGroups } = this.request;
    const caps = this.request.onePassCaps ?? { collected: MAX_COLLECTED, posted: MAX_POSTED };
    if (condition.postingTerms && visibleGroups === null && !grouped) {
      const { sql, params } = condition.postingTerms;
      // The kept counts include segments of hidden partitions: then the postings are counted.
      const counted = this.hidden.length === 0 ? countedTerm(this.db, sql, params) : undefined;
      if (counted) {
        this.where = TERM_CONDITION;
        this.params = [counted.term];
        this.withoutProcessRows = true;
        this.term = counted.term ?? undefined;
        return { documents: counted.segments, segments: counted.segments };
      }
      this.posted = postedSegments(this.db, sql, params, visibleRows('segment_row', this.hidden), caps.posted);
      if (this.posted) {
        // The page and the facets read these segments instead of the postings again.
        this.where = 's.id IN (SELECT value FROM json_each(?))';
        this.params = [JSON.stringify(this.posted.rows)];
        this.withoutProcessRows = true;
        return { documents: this.posted.rows.length, segments: this.posted.rows.length };
      }
      // Postings are unique per (term, segment); a segment posted under several terms counts once.
      const segments = cachedStatement(this.db,
        `SELECT count(DISTINCT segment_row) FROM event_postings WHERE term_id IN (${condition.postingTerms.sql})${visibleRows('segment_row', this.hidden)}`)
        .pluck().get(...condition.postingTerms.params) as number;
      return { documents: segments, segments };
    }
    if (this.hostScoped && !grouped) {
      const segments = this.values(`SELECT coalesce(sum(segments), 0) FROM host_segment_counts p WHERE ${this.where}`)[0]!;
      return { documents: segments, segments };
    }
    if (!condition.readsSegments) {
      const from = this.withoutProcessRows
        ? `process_segment_counts c WHERE ${this.where.replace(/\bp\.id\b/gu, 'c.process_row')}`
        : `${PROCESSES_WITH_COUNTS} WHERE ${this.where}`;
      // The list travels as one JSON text, built by SQLite: cheaper than a row per process.
      const [listedProcesses, listedSegments, list] = cachedStatement(this.db,
        `SELECT count(*), coalesce(sum(segments), 0), json_group_array(process_row) FROM (SELECT c.process_row, c.segments FROM ${from} LIMIT ${MAX_LISTED + 1})`,
      ).raw().get(...this.params) as [number, number, string];
      if (listedProcesses <= MAX_LISTED) {
        // The page and the facets read these processes' segments instead of evaluating the query again.
        this.where = 'p.id IN (SELECT value FROM json_each(?))';
        this.params = [list];
        this.withoutProcessRows = true;
        this.listed = true;
        return { documents: grouped ? listedProcesses : listedSegments, segments: listedSegments };
      }
      const [processes, segments] = this.values(`SELECT count(*), coalesce(sum(c.segments), 0) FROM ${from}`);
      return { documents: grouped ? processes! : segments!, segments: segments! };
    }
    const { from, where } = this.segmentsFrom();
    if (!grouped && this.sort.level === 'segment' && this.request.rows > 0) {
      this.collected = collectMatches(this.db, from, where, this.params, this.sort.column, caps.collected);
      if (this.collected) return { documents: this.collected.rows.length, segments: this.collected.rows.length };
    }
    if (!grouped) {
      const segments = this.values(`SELECT count(*) FROM ${from} WHERE ${where}`)[0]!;
      return { documents: segments, segments };
    }
    const [processes, segments] = this.values(`SELECT count(DISTINCT s.process_id), count(*) FROM ${from} WHERE ${where}`);
    return { documents: processes!, segments: segments! };
  }

  /** The page's segment rows, in order. */
  private page(matches: number): number[] {
    const { start, rows, grouped } = this.request;
    if (this.collected) return pageOfCollected(this.collected, this.request.sort.descending, start, rows);
    const stored = this.value<number>('SELECT coalesce(max(id), 0) FROM segments');
    // Rows read in index order before the page is full, against every match read and sorted.
    const sortedFromIndex = this.listed && this.sort.column === 's.last_update_ms' && matches <= MAX_LISTED_SORTED;
    let inOrder = this.sort.index !== undefined && !sortedFromIndex && (start + rows) * (stored / Math.max(matches, 1)) <= matches;
    if (this.term !== undefined && inOrder && this.sort.level === 'segment') {
      const expected = Math.min(rows, matches - start);
      const walked = walkTermPage(this.db, { column: this.sort.column, index: this.sort.index!, direction: this.direction() }, this.term,
        { start, rows, expected, density: matches / Math.max(stored, 1) }, this.request.onePassCaps?.termWalk);
      if (walked) return walked;
      inOrder = false;
    }
    if (this.posted && inOrder && this.sort.level === 'segment') {
      const { from } = this.segmentsFrom(this.sort.index);
      return withPosted(this.posted, () => cachedStatement(this.db,
        `SELECT s.id FROM ${from} WHERE vigil_posted(s.id)${this.visible} ORDER BY ${this.orderBy(false)} LIMIT ? OFFSET ?`,
      ).pluck().all(rows, start) as number[]);
    }
    if (!grouped) {
      const { from, where } = inOrder ? this.orderedFrom() : this.unorderedFrom();
      return cachedStatement(this.db, `SELECT s.id FROM ${from} WHERE ${where} ORDER BY ${this.orderBy(!inOrder)} LIMIT ? OFFSET ?`)
        .pluck().all(...this.params, rows, start) as number[];
    }
    if (inOrder) return this.firstPerProcess();
    const partition = this.sort.level === 'segment' ? `${this.sort.column} ${this.direction()}, s.id ${this.direction()}` : `s.segment_id ${this.direction()}`;
    const { from, where } = this.unorderedFrom();
    return cachedStatement(this.db,
      `SELECT id FROM (SELECT s.id, ${this.sortColumns()}, row_number() OVER (PARTITION BY s.process_id ORDER BY ${partition}) AS r
       FROM ${from} WHERE ${where}) WHERE r = 1 ORDER BY ${this.outerOrder()} LIMIT ? OFFSET ?`,
    ).pluck().all(...this.params, rows, start) as number[];
  }

  /** Grouped, read in order: each process's first segment, skipping processes already seen. */
  private firstPerProcess(): number[] {
    const { start, rows } = this.request;
    const seen = new Set<number>();
    const ids: number[] = [];
    const { from, where } = this.orderedFrom();
    const statement = cachedStatement(this.db, `SELECT s.id, s.process_id FROM ${from} WHERE ${where} ORDER BY ${this.orderBy(false)}`).raw();
    for (const [id, processRow] of statement.iterate(...this.params) as Iterable<[number, number]>) {
      if (seen.has(processRow)) continue;
      seen.add(processRow);
      if (seen.size > start) ids.push(id);
      if (ids.length === rows) break;
    }
    return ids;
  }

  /** Matches read through the sort key's index, in the key's order. */
  private orderedFrom(): { from: string; where: string } {
    return this.sort.level === 'segment'
      ? this.segmentsFrom(this.sort.index)
      : { from: `processes p INDEXED BY ${this.sort.index} CROSS JOIN segments s ON s.process_id = p.id`, where: this.where + this.visible };
  }

  /** Matches collected in whatever order SQLite finds them best, to be sorted. */
  private unorderedFrom(): { from: string; where: string } {
    return this.sort.level === 'segment' ? this.segmentsFrom() : { from: SEGMENTS_AND_PROCESSES, where: this.where + this.visible };
  }

  private direction(): 'ASC' | 'DESC' {
    return this.request.sort.descending ? 'DESC' : 'ASC';
  }

  /** The total order; `unindexed` keeps SQLite from walking an index for it (the sort plan). */
  private orderBy(unindexed: boolean): string {
    const dir = this.direction();
    const key = `${unindexed ? '+' : ''}${this.sort.column} ${dir}`;
    return this.sort.level === 'segment' ? `${key}, s.id ${dir}` : `${key}, p.id ${dir}, s.segment_id ${dir}`;
  }

  /** The grouped sort plan's inner columns and outer order (same total order as orderBy). */
  private sortColumns(): string {
    return this.sort.level === 'segment' ? `${this.sort.column} AS k` : `${this.sort.column} AS k, p.id AS pk`;
  }

  private outerOrder(): string {
    const dir = this.direction();
    return this.sort.level === 'segment' ? `k ${dir}, id ${dir}` : `k ${dir}, pk ${dir}`;
  }

  private fetch(ids: readonly number[]): ProcessRow[] {
    if (ids.length === 0) return [];
    const rows = cachedStatement(this.db, 
      `SELECT ${ROW_COLUMNS} FROM ${SEGMENTS_AND_PROCESSES} ${PROCESS_CONTEXT_JOINS} WHERE s.id IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(ids)) as ProcessRow[];
    const byRow = new Map(rows.map((row) => [row.segment_row, row]));
    return ids.map((id) => byRow.get(id)!);
  }

  private value<T>(sql: string): T {
    return cachedStatement(this.db, sql).pluck().get() as T;
  }

  private values(sql: string): number[] {
    return cachedStatement(this.db, sql).raw().get(...this.params) as number[];
  }
}
