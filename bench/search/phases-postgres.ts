/**
 * bench/search on PostgreSQL, in process: the queries of run.ts that missed their target run
 * straight through PostgresProcessSearchStore on a copy of the dataset's database (run.ts leaves
 * its last copy, `search_run`, on the dataset's server), timing each statement the search runs:
 * where a search's time goes, without HTTP or the ingest load. As phases.ts does for SQLite.
 *
 *   node --import tsx bench/search/phases-postgres.ts --database-url postgres://…/search_run [--iterations 10]
 *        [--dir /tmp/vigil-bench-search-pg] [--query 'process_name:svchost.exe' …]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { PostgresDatabase, PostgresExecutor } from '../../src/db/dialects/postgres.js';
import type { SqlValue } from '../../src/db/database.js';
import { allOf, type Predicate } from '../../src/query/analysis.js';
import { analyzeParams } from '../../src/query/params.js';
import { PostgresProcessSearchStore } from '../../src/modules/processes/process-search.postgres.js';
import { DEFAULT_POSTGRES_DIR } from './generate.js';

const { values } = parseArgs({
  options: {
    'database-url': { type: 'string' }, iterations: { type: 'string', default: '10' }, dir: { type: 'string', default: DEFAULT_POSTGRES_DIR },
    query: { type: 'string', multiple: true, default: [] },
  },
});
const { endMs } = JSON.parse(readFileSync(join(values.dir, 'manifest.json'), 'utf8')) as { endMs: number };
const db = PostgresDatabase.open(values['database-url']!, { poolSize: 2 });

/** Each statement's time and rows, summed per SQL text over one search. */
const phases = new Map<string, { ms: number; rows: number }>();
for (const method of ['all', 'get'] as const) {
  const original = PostgresExecutor.prototype[method] as (sql: string, params?: readonly SqlValue[]) => Promise<unknown>;
  (PostgresExecutor.prototype as unknown as Record<string, unknown>)[method] = async function timed(this: PostgresExecutor, sql: string, params?: readonly SqlValue[]) {
    const began = performance.now();
    const result = await original.call(this, sql, params);
    const phase = phases.get(sql) ?? { ms: 0, rows: 0 };
    phases.set(sql, { ms: phase.ms + performance.now() - began, rows: phase.rows + (Array.isArray(result) ? result.length : 1) });
    return result;
  };
}

const since = (ms: number): Predicate => ({
  op: 'field', field: 'last_update', type: 'datetime', source: 'process', match: { kind: 'time_range', from: ms, to: null }, span: { start: 0, end: 0 },
});
const QUERIES: [string, string, Predicate[], boolean][] = [
  ['cmdline *update*', 'cmdline:*update*', [], false],
  ['time-restricted', 'process_name:chrome.exe', [since(endMs - 86_400_000)], false],
  ['domain', 'domain:microsoft.com', [], false],
  ['two terms', 'process_name:powershell.exe username:corp\\peggy', [], false],
  ['grouped', 'process_name:chrome.exe', [], true],
  ...values.query.map((q): [string, string, Predicate[], boolean] => [q, q, [], false]),
];

const store = new PostgresProcessSearchStore(db);
for (const [name, q, bounds, grouped] of QUERIES) {
  const predicate = allOf([analyzeParams({ q }, { index: 'process', now: endMs }).predicate, ...bounds]);
  const times: number[] = [];
  let total = 0;
  for (let i = 0; i < Number(values.iterations); i++) {
    phases.clear();
    const began = performance.now();
    total = (await store.search({
      predicate, visibleGroups: null, sort: { key: 'last_update', descending: true }, start: 0, rows: 100, grouped, facets: [], nowMs: endMs,
    }, { key: `${name}${i}`, fresh: true })).total;
    times.push(performance.now() - began);
  }
  times.sort((a, b) => a - b);
  console.log(`${name}: ${total} matches, median ${times[times.length >> 1]!.toFixed(1)} ms (min ${times[0]!.toFixed(1)})`);
  for (const [sql, { ms, rows }] of phases) console.log(`  ${ms.toFixed(1).padStart(6)} ms ${String(rows).padStart(7)} rows  ${sql.replace(/\s+/gu, ' ').slice(0, 160)}`);
}
await db.close();
