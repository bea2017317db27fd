/**
 * Binary search on the embedded store, run in a read worker (a ReadHandler) inside one read
 * transaction: the exact count, a page ordered by the sort key then md5, the binaries'
 * observations the caller may see, and facets. The binaries table holds one row per distinct
 * file, far fewer than processes, so these are plain indexed or scanning queries.
 */
import type Database from 'better-sqlite3';
import type { ReadResult } from '../../db/dialects/sqlite-read.messages.js';
import { cachedStatement } from '../../db/dialects/sqlite-statements.js';
import { SQLITE_FUNCTIONS } from '../../query/compile/sqlite-functions.js';
import {
  BINARY_SORTS, binaryFacet, facetCounts, SEEN_BY, type BinaryObservationRow, type BinaryRow,
  type BinarySearchResult, type CompiledBinarySearch,
} from './binary-search.plan.js';

export function setup(connection: Database.Database): void {
  for (const [name, fn] of Object.entries(SQLITE_FUNCTIONS)) connection.function(name, { deterministic: true }, fn);
}

export function run(db: Database.Database, request: CompiledBinarySearch): ReadResult<BinarySearchResult> {
  const { condition, visibleGroups, sort, start, rows } = request;
  if (visibleGroups?.length === 0) return { result: { total: 0, rows: [], facets: {} }, more: false };
  const groups = JSON.stringify(visibleGroups);
  const seenBy = visibleGroups === null ? '' : ' AND se.group_id IN (SELECT value FROM json_each(?))';
  const where = visibleGroups === null
    ? `(${condition.sql})`
    : `(${condition.sql}) AND EXISTS (SELECT 1 FROM binary_observations o JOIN sensors se ON se.id = o.sensor_id WHERE o.md5 = b.md5${seenBy})`;
  const params = visibleGroups === null ? [...condition.params] : [...condition.params, groups];

  const total = cachedStatement(db, `SELECT count(*) FROM binaries b WHERE ${where}`).pluck().get(...params) as number;
  const dir = sort.descending ? 'DESC' : 'ASC';
  const md5s = rows > 0 && start < total
    ? cachedStatement(db, `SELECT b.md5 FROM binaries b WHERE ${where} ORDER BY ${BINARY_SORTS[sort.key]} ${dir}, b.md5 ${dir} LIMIT ? OFFSET ?`)
      .pluck().all(...params, rows, start) as string[]
    : [];
  const found = cachedStatement(db, 
    'SELECT md5, sha256, size, stored_size, metadata, first_seen_ms, last_seen_ms FROM binaries WHERE md5 IN (SELECT value FROM json_each(?))',
  ).all(JSON.stringify(md5s)) as Omit<BinaryRow, 'observations'>[];
  const observations = cachedStatement(db, 
    `SELECT o.md5, o.sensor_id, o.observed_filename, o.last_seen_ms, se.computer_name, se.os_type, se.group_id, g.name AS group_name
     FROM binary_observations o LEFT JOIN sensors se ON se.id = o.sensor_id LEFT JOIN sensor_groups g ON g.id = se.group_id
     WHERE o.md5 IN (SELECT value FROM json_each(?))${seenBy} ORDER BY o.sensor_id, o.observed_filename`,
  ).all(...(visibleGroups === null ? [JSON.stringify(md5s)] : [JSON.stringify(md5s), groups])) as (BinaryObservationRow & { md5: string })[];
  const byMd5 = new Map(found.map((row) => [row.md5, { ...row, observations: [] as BinaryObservationRow[] }]));
  for (const { md5, ...observation } of observations) byMd5.get(md5)?.observations.push(observation);

  const facets: BinarySearchResult['facets'] = {};
  const seenParams = visibleGroups === null ? [] : [groups];
  for (const field of request.facets) {
    const spec = binaryFacet(field);
    if (!spec) continue;
    const expr = spec.expr.replace(SEEN_BY, seenBy);
    const counts = spec.observed
      ? cachedStatement(db,
        `SELECT ${expr}, count(DISTINCT o.md5) FROM binary_observations o JOIN sensors se ON se.id = o.sensor_id
         LEFT JOIN sensor_groups g ON g.id = se.group_id WHERE o.md5 IN (SELECT b.md5 FROM binaries b WHERE ${where})${seenBy} GROUP BY 1`,
      ).raw().all(...params, ...seenParams) as [string, number][]
      : cachedStatement(db, `SELECT ${expr}, count(*) FROM binaries b WHERE ${where} GROUP BY 1`)
        .raw().all(...(expr === spec.expr ? [] : seenParams), ...params) as [unknown, number][];
    facets[field] = facetCounts(spec, counts, request.nowMs);
  }
  return { result: { total, rows: md5s.map((md5) => byMd5.get(md5)!), facets }, more: start + rows < total };
}
