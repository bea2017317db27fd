/**
 * bench/pg-search: process search through both stores' ProcessSearchStore on the same data: the
 * simulator's events committed into the embedded store and into PostgreSQL (bench/pg-ingest's
 * server, durable defaults), then bench/search's query shapes, each the count, the first 100
 * rows and (where asked) facets. A small set next to bench/search's 2M segments: it compares
 * the two stores' plans, not the targets of issue 18 point 8.
 *
 *   node --import tsx bench/pg-search/run.ts [--events 1000000] [--sensors 64] [--iterations 7]
 *
 * Prints one JSON line: segments and processes stored, then per query and store the first
 * (cold) time and the median in ms, and the totals (which must agree).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { SqlDatabase } from '../../src/db/database.js';
import { PostgresDatabase } from '../../src/db/dialects/postgres.js';
import { SqliteDatabase } from '../../src/db/dialects/sqlite.js';
import { SqliteReadPool } from '../../src/db/dialects/sqlite-read-pool.js';
import { migrate } from '../../src/db/migrate.js';
import { postgresMigrations } from '../../src/db/migrations/postgres.js';
import { sqliteMigrations } from '../../src/db/migrations/sqlite.js';
import type { EventStore, IngestBatch } from '../../src/ingest/event-store.js';
import { FilterGate } from '../../src/ingest/ingress-gate.js';
import { normalizeEvent } from '../../src/ingest/normalize.js';
import { EventPreparer, type PreparedEvents } from '../../src/ingest/prepare.js';
import { validateEvents } from '../../src/ingest/validate.js';
import { PostgresEventStore } from '../../src/modules/processes/event-store.postgres.js';
import { SqliteEventStore } from '../../src/modules/processes/event-store.sqlite.js';
import type { ProcessSearchRequest } from '../../src/modules/processes/process-search.plan.js';
import { PostgresProcessSearchStore } from '../../src/modules/processes/process-search.postgres.js';
import type { ProcessSearchStore } from '../../src/modules/processes/process-search.store.js';
import { PooledProcessSearchStore, READ_HANDLERS } from '../../src/wiring/sqlite-read-stores.js';
import { analyzeParams } from '../../src/query/params.js';
import { BinaryCatalog } from '../../src/sensor/binaries.js';
import { Endpoint } from '../../src/sensor/endpoint.js';
import { startBenchPostgres } from '../pg-ingest/server.js';
import { calibrationLine } from '../support/calibration.js';

const { values } = parseArgs({
  options: { events: { type: 'string', default: '1000000' }, sensors: { type: 'string', default: '64' }, iterations: { type: 'string', default: '7' } },
});
// The machine's calibration, to read the figures below on another machine (bench/support/calibration.ts).
console.log(await calibrationLine());
const total = Number(values.events);
const sensorCount = Number(values.sensors);
const iterations = Number(values.iterations);
const BATCH = 2000;
const RULES = { maxEventsPerSegment: 10_000, windowMs: 600_000 };

const QUERIES: { name: string; q: string; sort?: ProcessSearchRequest['sort']['key']; grouped?: boolean; facets?: string[]; rows?: number }[] = [
  { name: 'one term', q: 'process_name:svchost.exe' },
  { name: 'leading-wildcard cmdline', q: 'cmdline:*update*' },
  { name: 'hostname prefix', q: 'hostname:win*' },
  { name: 'event field (domain)', q: 'domain:microsoft.com' },
  { name: 'module path', q: 'modload:kernel32.dll' },
  { name: 'sorted by start', q: 'os_type:windows', sort: 'start' },
  { name: 'grouped by process', q: 'process_name:svchost.exe', grouped: true },
  { name: 'facets on two fields, all rows', q: '', facets: ['process_name', 'hostname'], rows: 0 },
];

const binaries = new BinaryCatalog('1');
const endpoints = Array.from({ length: sensorCount }, (_, index) => new Endpoint({ seed: '1', index, startMs: Date.now(), binaries }));

/** Commits of 16 batches, made once so that both stores get the same events. */
const preparer = new EventPreparer(new FilterGate());
const sequences = new Array<number>(sensorCount).fill(0);
const commits: IngestBatch[][] = [];
for (let made = 0; made < total; made += BATCH * 16) {
  commits.push(Array.from({ length: 16 }, (_, i) => (made / BATCH + i) % sensorCount).map((sensor): IngestBatch => {
    const e = endpoints[sensor]!;
    const events = validateEvents(JSON.parse(JSON.stringify(e.take(BATCH))) as unknown[]).valid.map(normalizeEvent);
    const prepared: PreparedEvents = preparer.prepare({ sensorId: sensor + 1, groupId: 1, osType: e.os }, events);
    return { sensor: { id: sensor + 1, groupId: 1, hostname: e.hostname, hostType: 'workstation', osType: e.os }, sequence: ++sequences[sensor]!, ...prepared, counters: new Map() };
  }));
}

async function load(db: SqlDatabase, store: EventStore): Promise<void> {
  for (const e of endpoints) {
    await db.run(
      `INSERT INTO sensors (group_id, secret_hash, os_type, host_type, computer_name, build_version_string, registration_ms)
       VALUES (1, 'x', ?, 'workstation', ?, '006.001.002.71109', 0)`, [e.os, e.hostname],
    );
  }
  for (const group of commits) await store.commit(group);
}

async function time(store: ProcessSearchStore, request: ProcessSearchRequest): Promise<{ first: number; median: number; total: number }> {
  const times: number[] = [];
  let found = 0;
  for (let i = 0; i <= iterations; i++) {
    const started = performance.now();
    found = (await store.search(request, { key: `bench-${i}`, fresh: true })).total;
    times.push(performance.now() - started);
  }
  const rest = times.slice(1).sort((a, b) => a - b);
  return { first: Math.round(times[0]!), median: Math.round(rest[rest.length >> 1]! * 10) / 10, total: found };
}

function request(predicate: ProcessSearchRequest['predicate'], query: (typeof QUERIES)[number], now: number): ProcessSearchRequest {
  return {
    predicate, visibleGroups: null, sort: { key: query.sort ?? 'last_update', descending: true }, start: 0, rows: query.rows ?? 100,
    grouped: query.grouped ?? false, facets: query.facets ?? [], nowMs: now,
  };
}

const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-pg-search-'));
const server = await startBenchPostgres();
try {
  const sqlite = SqliteDatabase.open(join(dir, 'vigil.db'));
  await migrate(sqlite, sqliteMigrations);
  await load(sqlite, new SqliteEventStore(sqlite, RULES));
  const postgres = PostgresDatabase.open(server.url, { poolSize: 4 });
  await migrate(postgres, postgresMigrations);
  await load(postgres, new PostgresEventStore(postgres, RULES));
  await postgres.exec('VACUUM ANALYZE');
  const pool = new SqliteReadPool(sqlite.connection.name, { workers: 1, handlers: { [READ_HANDLERS.processSearch.name]: READ_HANDLERS.processSearch.url } });
  const stores = { sqlite: new PooledProcessSearchStore(pool), postgres: new PostgresProcessSearchStore(postgres) };
  const now = Date.now();
  const results: Record<string, unknown> = {
    events: total,
    segments: (await postgres.get<{ n: number }>('SELECT count(*) AS n FROM segments'))!.n,
    processes: (await postgres.get<{ n: number }>('SELECT count(*) AS n FROM processes'))!.n,
  };
  for (const query of QUERIES) {
    const { predicate } = analyzeParams({ q: query.q }, { index: 'process', now });
    results[query.name] = {
      sqlite: await time(stores.sqlite, request(predicate, query, now)),
      postgres: await time(stores.postgres, request(predicate, query, now)),
    };
  }
  console.log(JSON.stringify(results));
  await pool.close();
  await sqlite.close();
  await postgres.close();
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
