/**
 * The page of a process search on PostgreSQL, read through an index that serves the sort order
 * rather than by sorting every match (schema version 6; docs/adr/0027-postgres-search-plans.md).
 * PostgreSQL's planner cannot see how a condition on processes spreads over segments' update
 * times, and on the 2M-segment dataset sorted every match of a common process name in parallel
 * (400–500 ms). With the count known first, as on SQLite (ADR 0008), the plan is chosen here:
 *
 * - walk: segments in update order from the newest, the condition tested on each, until the page
 *   is full: about (start + rows) × segments ÷ matches rows, cheap when matches are dense. A walk
 *   that ends short (matches bunched in older segments) goes again, longer, up to a bound.
 * - the same walk against matches the count read and kept (a condition that is one event field:
 *   its segment rows; one on process columns: its processes' ids), bound as an array that
 *   PostgreSQL hashes once, so the walk reads only the update-order index.
 * - per host, for a condition on host columns alone: the newest start + rows segments of each
 *   matching sensor (LATERAL, through (sensor, last update)), merged: a few hundred sensors at most.
 * - per process: the newest start + rows segments of each matching process (LATERAL, through
 *   (process, last update)), merged: about as many rows as matches, cheap when they are few.
 *   Also the grouped page sorted by update: a process's first document is its newest segment.
 * - otherwise the plain query, PostgreSQL choosing between its indexes and a sort.
 *
 * Every plan gives the same total order (the sort key, then the segment row), so pages of one
 * search may come from different plans.
 */
import type { SqlExecutor, SqlValue } from '../../db/database.js';
import { SORTS, type CompiledProcessSearch } from './process-search.plan.js';

/** Walks longer than this many segments are left to the planner: past it, collecting the matches costs less. */
const WALK_LIMIT = 40_000;
/** The walk reads this many times its estimate (plus a margin), since matches are not spread evenly in time. */
const WALK_SLACK = 2;
const WALK_MARGIN = 1_000;
const WALK_GROWTH = 4;
/** The segment columns the update-order index carries (schema version 9). */
const UPDATE_ORDER_COLUMNS: ReadonlySet<string> = new Set(['id', 'sensor_id', 'process_id', 'last_update_ms']);
/**
 * A grouped walk's first length per document of the page (each step builds the hash anew, so the first
 * is long enough for most pages: chrome.exe's 100 processes took 5,100 segments), and its bound per
 * matching process (readPage).
 */
const GROUPED_WALK_PER_DOCUMENT = 60;
const GROUPED_WALK_PER_PROCESS = 4;

/**
 * Joined on the process id alone (ids are unique across sensors): with the sensor equality too,
 * PostgreSQL multiplies the two columns' selectivities and expects a sliver of the rows, and
 * then plans event-term lookups as a probe per segment (bench/RESULTS.md, bench/pg-search).
 * Distributed by sensor (Citus), the join needs the sensor equality back. Probes of single
 * segments (the walk, a page's rows) join on both, to use the processes' primary key.
 */
export const SEGMENTS_AND_PROCESSES = 'segments s JOIN processes p ON p.id = s.process_id';

export interface PageQuery {
  request: CompiledProcessSearch;
  /** The condition over `s` and `p`, with its parameters. */
  where: string;
  params: readonly SqlValue[];
  /** Matching documents (segments, or processes when grouped). */
  total: number;
  /** Whether the condition reads only process columns (`p`), so it can be tested per process. */
  perProcess: boolean;
  /** Whether it reads only host columns, so host_segment_counts can test it per host. */
  hostScoped: boolean;
  /** The matches the count read, when it kept them. */
  inHand?: MatchesInHand;
  /** Segments the caller may see, read only when the walk is considered. */
  visibleSegments: () => Promise<number>;
  /** A plan to use where it applies, instead of the one the figures choose: tests reach every plan on small data. */
  forced?: ForcedPagePlan;
}

/**
 * Matches the count read, as a PostgreSQL array literal of ids: the matching segment rows (`id`), or
 * the matching processes (`process_id`; process ids are unique across sensors).
 */
export interface MatchesInHand {
  column: 'id' | 'process_id';
  ids: string;
}

/** walk: its first length (later ones grow as ever). */
export type ForcedPagePlan = { plan: 'walk'; firstLength: number } | { plan: 'per-process' | 'per-sensor' | 'planned' };

/** The page's segment rows, in the total order. */
export async function readPage(tx: SqlExecutor, query: PageQuery): Promise<number[]> {
  const { request, total, perProcess, forced } = query;
  const byUpdate = request.sort.key === 'last_update' && forced?.plan !== 'planned';
  if (byUpdate && request.grouped && perProcess) {
    // The per-process plan reads about three index pages per matching process; the walk about two
    // thirds of a heap page per segment, so it may read four segments per process before it costs more.
    const [first, budget] = forced?.plan === 'walk' ? [forced.firstLength, WALK_LIMIT * WALK_GROWTH]
      : [(request.start + request.rows) * GROUPED_WALK_PER_DOCUMENT, Math.min(total * GROUPED_WALK_PER_PROCESS, WALK_LIMIT)];
    if (forced ? forced.plan === 'walk' : first <= budget) {
      const found = await walkNewestProcesses(tx, query, first, budget);
      if (found) return found;
    }
    return newestPerProcess(tx, query, 1);
  }
  if (byUpdate && !request.grouped) {
    const needed = request.start + request.rows;
    if (query.hostScoped && (forced === undefined || forced.plan === 'per-sensor')) {
      const found = await newestPerSensor(tx, query, needed);
      if (found) return found;
    }
    const walk = forced?.plan === 'walk' ? forced.firstLength
      : Math.ceil((needed * (await query.visibleSegments())) / Math.max(total, 1)) * WALK_SLACK + WALK_MARGIN;
    if (perProcess && (forced ? forced.plan === 'per-process' : walk > total)) return newestPerProcess(tx, query, needed);
    if (query.inHand && walk <= WALK_LIMIT) {
      const found = await walkInHand(tx, query, query.inHand, walk);
      if (found) return found;
    }
    // A walk that ends short is tried again four times longer, up to the limit: at most a third more reading.
    for (let length = walk; length < WALK_LIMIT * WALK_GROWTH; length *= WALK_GROWTH) {
      const found = await walkNewest(tx, query, Math.min(length, WALK_LIMIT));
      if (found) return found;
    }
  }
  return planned(tx, query);
}

/**
 * The newest `walk` segments, each tested against the condition; undefined when they held too few
 * matches for the page. The condition is tested in a LATERAL subquery that PostgreSQL cannot
 * flatten (LIMIT 1), so each segment probes its process by primary key in walk order and the
 * walk stops when the page is full; as a join, PostgreSQL hashed every matching process first
 * (svchost.exe: 10,611 processes, 8,073 heap blocks, 210 ms against 8 ms). For a condition that
 * reads no other segment column, the walk reads only the columns the update-order index carries
 * (schema version 9), so not the segments' heap.
 */
async function walkNewest(tx: SqlExecutor, { request, where, params, total }: PageQuery, walk: number): Promise<number[] | undefined> {
  const dir = request.sort.descending ? 'DESC' : 'ASC';
  // The compiled text names segment columns as s.<column> (values are parameters), so those it reads can be listed.
  const indexOnly = [...where.matchAll(/\bs\.(\w+)/gu)].every((m) => UPDATE_ORDER_COLUMNS.has(m[1]!));
  const columns = indexOnly ? [...UPDATE_ORDER_COLUMNS].join(', ') : '*';
  const found = await tx.all<{ id: number }>(
    `SELECT s.id FROM (SELECT ${columns} FROM segments ORDER BY last_update_ms ${dir}, id ${dir} LIMIT ?) s
     CROSS JOIN LATERAL (SELECT 1 FROM processes p WHERE p.sensor_id = s.sensor_id AND p.id = s.process_id AND ${where} LIMIT 1) matched
     ORDER BY s.last_update_ms ${dir}, s.id ${dir} LIMIT ? OFFSET ?`,
    [walk, ...params, request.rows, request.start],
  );
  const expected = Math.min(request.rows, total - request.start);
  return found.length >= expected ? found.map((r) => r.id) : undefined;
}

/**
 * The walk for matches already in hand: segments in update order from the index alone, in steps
 * that grow fourfold, each tested against the ids (a constant array, which PostgreSQL hashes once
 * per statement), until the page is full; undefined past the bound. Only the matches and each
 * step's last segment (where the next step goes on) come back.
 */
async function walkInHand(tx: SqlExecutor, { request, total }: PageQuery, { column, ids }: MatchesInHand, walk: number): Promise<number[] | undefined> {
  const [dir, past] = request.sort.descending ? ['DESC', '<'] : ['ASC', '>'];
  const wanted = Math.min(request.start + request.rows, total);
  const found: number[] = [];
  let after: [number, number] | undefined;
  for (let read = 0, step = walk; read < WALK_LIMIT; read += step, step *= WALK_GROWTH) {
    const asked = Math.min(step, WALK_LIMIT - read);
    const rows = await tx.all<{ id: number; last_update_ms: number; hit: boolean; n: number }>(
      `SELECT * FROM (
         SELECT s.id, s.last_update_ms, s.${column} = ANY(?::bigint[]) AS hit, row_number() OVER (ORDER BY s.last_update_ms ${dir}, s.id ${dir}) AS n
         FROM (SELECT id, process_id, last_update_ms FROM segments ${after ? `WHERE (last_update_ms, id) ${past} (?, ?)` : ''}
               ORDER BY last_update_ms ${dir}, id ${dir} LIMIT ?) s
       ) walked WHERE hit OR n = ? ORDER BY n`,
      [ids, ...(after ?? []), asked, asked],
    );
    for (const row of rows) if (row.hit) found.push(row.id);
    if (found.length >= wanted) return found.slice(request.start, wanted);
    const last = rows.at(-1);
    if (Number(last?.n) !== asked) return undefined;
    after = [last!.last_update_ms, last!.id];
  }
  return undefined;
}

/**
 * The grouped walk: segments in update order from the newest, in steps that grow fourfold, each
 * kept when its process matches and is not yet on the page (a process's first segment in the walk
 * is its document). Matching is a hash of the matching processes' ids, built once per step from
 * the condition, where a probe per segment would read its process's heap page. Undefined when the
 * documents are not all found within `budget` segments.
 */
async function walkNewestProcesses(tx: SqlExecutor, { request, where, params, total }: PageQuery, first: number, budget: number): Promise<number[] | undefined> {
  const [dir, past] = request.sort.descending ? ['DESC', '<'] : ['ASC', '>'];
  const wanted = Math.min(request.start + request.rows, total);
  const documents: number[] = [];
  const listed = new Set<number>();
  let after: [number, number] | undefined;
  for (let read = 0, step = first; read < budget; read += step, step *= WALK_GROWTH) {
    const asked = Math.min(step, budget - read);
    // The matches and the step's last segment (where the next step goes on), in walk order. The
    // test is not an `IN` at the top of WHERE, which PostgreSQL would turn into a probe per process.
    const rows = await tx.all<{ id: number; process_id: number; last_update_ms: number; hit: boolean; n: number }>(
      `SELECT * FROM (
         SELECT s.id, s.process_id, s.last_update_ms, coalesce(s.process_id IN (SELECT p.id FROM processes p WHERE ${where}), false) AS hit,
           row_number() OVER (ORDER BY s.last_update_ms ${dir}, s.id ${dir}) AS n
         FROM (SELECT id, process_id, last_update_ms FROM segments ${after ? `WHERE (last_update_ms, id) ${past} (?, ?)` : ''}
               ORDER BY last_update_ms ${dir}, id ${dir} LIMIT ?) s
       ) walked WHERE hit OR n = ? ORDER BY n`,
      [...params, ...(after ?? []), asked, asked],
    );
    for (const row of rows) {
      if (!row.hit || listed.has(row.process_id)) continue;
      listed.add(row.process_id);
      documents.push(row.id);
    }
    const last = rows.at(-1);
    // A step that ended short walked the last segment: every matching process is listed.
    if (documents.length >= wanted || Number(last?.n) !== asked) return documents.slice(request.start, wanted);
    after = [last!.last_update_ms, last!.id];
  }
  return undefined;
}

/** The newest `each` segments of every matching process, merged in update order. */
async function newestPerProcess(tx: SqlExecutor, { request, where, params }: PageQuery, each: number): Promise<number[]> {
  const dir = request.sort.descending ? 'DESC' : 'ASC';
  const found = await tx.all<{ id: number }>(
    `SELECT x.id FROM processes p CROSS JOIN LATERAL (
       SELECT s.id, s.last_update_ms FROM segments s WHERE s.process_id = p.id ORDER BY s.last_update_ms ${dir}, s.id ${dir} LIMIT ?
     ) x WHERE ${where} ORDER BY x.last_update_ms ${dir}, x.id ${dir} LIMIT ? OFFSET ?`,
    [each, ...params, request.rows, request.start],
  );
  return found.map((r) => r.id);
}

/**
 * The newest `each` segments of every sensor whose host rows all match, merged in update order;
 * undefined when a sensor's rows match in part (it was renamed or regrouped), whose segments
 * would each need their process checked.
 */
async function newestPerSensor(tx: SqlExecutor, { request, where, params }: PageQuery, each: number): Promise<number[] | undefined> {
  const dir = request.sort.descending ? 'DESC' : 'ASC';
  const hosts = `(SELECT p.sensor_id, (${where}) AS hit FROM host_segment_counts p) h GROUP BY h.sensor_id`;
  const mixed = await tx.get(`SELECT 1 AS found FROM ${hosts} HAVING bool_or(h.hit) AND NOT bool_and(h.hit) LIMIT 1`, params);
  if (mixed) return undefined;
  const found = await tx.all<{ id: number }>(
    `SELECT x.id FROM (SELECT h.sensor_id FROM ${hosts} HAVING bool_and(h.hit)) matched CROSS JOIN LATERAL (
       SELECT s.id, s.last_update_ms FROM segments s WHERE s.sensor_id = matched.sensor_id ORDER BY s.last_update_ms ${dir}, s.id ${dir} LIMIT ?
     ) x ORDER BY x.last_update_ms ${dir}, x.id ${dir} LIMIT ? OFFSET ?`,
    [...params, each, request.rows, request.start],
  );
  return found.map((r) => r.id);
}

/** The plain query: PostgreSQL chooses between the sort key's index and sorting the matches. */
async function planned(tx: SqlExecutor, { request, where, params }: PageQuery): Promise<number[]> {
  const { start, rows, grouped, sort } = request;
  const spec = SORTS[sort.key];
  const dir = sort.descending ? 'DESC' : 'ASC';
  const order = spec.level === 'segment' ? `${spec.column} ${dir}, s.id ${dir}` : `${spec.column} ${dir}, p.id ${dir}, s.segment_id ${dir}`;
  if (!grouped) {
    const found = await tx.all<{ id: number }>(
      `SELECT s.id FROM ${SEGMENTS_AND_PROCESSES} WHERE ${where} ORDER BY ${order} LIMIT ? OFFSET ?`, [...params, rows, start],
    );
    return found.map((r) => r.id);
  }
  // One document per process: its first segment in the sort order.
  const within = spec.level === 'segment' ? `${spec.column} ${dir}, s.id ${dir}` : `s.segment_id ${dir}`;
  const outer = spec.level === 'segment' ? `k ${dir}, id ${dir}` : `k ${dir}, pk ${dir}`;
  const found = await tx.all<{ id: number }>(
    `SELECT id FROM (SELECT s.id, ${spec.column} AS k, p.id AS pk, row_number() OVER (PARTITION BY s.process_id ORDER BY ${within}) AS r
     FROM ${SEGMENTS_AND_PROCESSES} WHERE ${where}) first WHERE r = 1 ORDER BY ${outer} LIMIT ? OFFSET ?`,
    [...params, rows, start],
  );
  return found.map((r) => r.id);
}
