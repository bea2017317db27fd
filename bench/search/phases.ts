/**
 * bench/search, in process: the three slowest queries of run.ts run straight through the search
 * handler (process-search.sqlite.ts) on a connection opened as a read worker opens it, timing each
 * statement it runs and the rows it returns — where a search's time goes, without HTTP, the pool
 * or the ingest load.
 *
 *   node --import tsx bench/search/phases.ts --dir <a copy made by dataset.ts, with manifest.json> [--iterations 20]
 *        [--query 'modload:*\\ntdll.dll' …]   (more queries to time, after the three; bench/curve's store works too)
 */
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { SQLITE_FILE } from '../../src/db/open.js';
import { allOf, type Predicate } from '../../src/query/analysis.js';
import { compileProcessCondition } from '../../src/query/compile/sqlite.js';
import { analyzeParams } from '../../src/query/params.js';
import { run, setup } from '../../src/modules/processes/process-search.sqlite.js';
import type { CompiledProcessSearch } from '../../src/modules/processes/process-search.plan.js';

const { values } = parseArgs({
  options: { dir: { type: 'string' }, iterations: { type: 'string', default: '20' }, query: { type: 'string', multiple: true, default: [] } },
});
const db = new Database(join(values.dir!, SQLITE_FILE), { readonly: true, fileMustExist: true });
db.pragma('mmap_size = 17179869184');
db.pragma('cache_size = -16384');
setup(db);

/** Each statement's time and rows, summed per SQL text over one search. */
const phases = new Map<string, { ms: number; rows: number }>();
const prepare = db.prepare.bind(db);
db.prepare = ((sql: string) => {
  const statement = prepare(sql);
  for (const method of ['all', 'get', 'iterate'] as const) {
    const original = statement[method].bind(statement) as (...args: unknown[]) => unknown;
    (statement as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      const began = performance.now();
      let result = original(...args);
      let rows = method === 'all' ? (result as unknown[]).length : 1;
      if (method === 'iterate') {
        result = [...(result as Iterable<unknown>)];
        rows = (result as unknown[]).length;
      }
      const phase = phases.get(sql) ?? { ms: 0, rows: 0 };
      phases.set(sql, { ms: phase.ms + performance.now() - began, rows: phase.rows + rows });
      return method === 'iterate' ? (result as unknown[])[Symbol.iterator]() : result;
    };
  }
  return statement;
}) as typeof db.prepare;

const { endMs } = JSON.parse(readFileSync(join(values.dir!, 'manifest.json'), 'utf8')) as { endMs: number };
const QUERIES: [string, string, Predicate[]][] = [
  ['cmdline *update*', 'cmdline:*update*', []],
  ['time-restricted', 'process_name:chrome.exe', [{
    op: 'field', field: 'last_update', type: 'datetime', source: 'process', match: { kind: 'time_range', from: endMs - 86_400_000, to: null }, span: { start: 0, end: 0 },
  }]],
  ['domain', 'domain:microsoft.com', []],
  ...values.query.map((q): [string, string, Predicate[]] => [q, q, []]),
];

for (const [name, q, bounds] of QUERIES) {
  const request: CompiledProcessSearch = {
    condition: compileProcessCondition(allOf([analyzeParams({ q }, { index: 'process', now: endMs }).predicate, ...bounds])),
    visibleGroups: null, sort: { key: 'last_update', descending: true }, start: 0, rows: 100, grouped: false, facets: [], nowMs: endMs,
  };
  const totals: number[] = [];
  let total = 0;
  for (let i = 0; i < Number(values.iterations); i++) {
    phases.clear();
    const began = performance.now();
    total = db.transaction(() => run(db, request).result.total)();
    totals.push(performance.now() - began);
  }
  totals.sort((a, b) => a - b);
  console.log(`${name}: ${total} matches, median ${totals[totals.length >> 1]!.toFixed(1)} ms (min ${totals[0]!.toFixed(1)})`);
  for (const [sql, { ms, rows }] of phases) console.log(`  ${ms.toFixed(1).padStart(6)} ms ${String(rows).padStart(7)} rows  ${sql.replace(/\s+/gu, ' ').slice(0, 150)}`);
}
