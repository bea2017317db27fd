/**
 * bench/pg-ingest: the event stores alone, side by side in one process on the simulator's
 * workload: the same prepared batches committed into the embedded store (SQLite, on this thread)
 * and into the PostgreSQL store (schema version 2, binary COPY), in commits of the same size made
 * by the server's group commit (BatchWriter, which overlaps the PostgreSQL store's commits).
 * No HTTP, no decoding: what each store costs per event.
 *
 *   node --import tsx bench/pg-ingest/run.ts [--events 400000] [--sensors 32] [--batch-size 2000] [--events-per-commit 32000]
 *
 * PostgreSQL is an embedded server of its own with its durable defaults (fsync, synchronous
 * commit), as SQLite keeps its own (WAL, synchronous NORMAL). Prints one JSON line: per store,
 * events per wall second, this process's CPU per event and (PostgreSQL) the server's CPU per
 * event, read from /proc for the postmaster and its children.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/config/load.js';
import { PostgresDatabase } from '../../src/db/dialects/postgres.js';
import { migrate } from '../../src/db/migrate.js';
import { postgresMigrations } from '../../src/db/migrations/postgres.js';
import { openDatabase } from '../../src/db/open.js';
import type { SqlDatabase } from '../../src/db/database.js';
import { BatchWriter } from '../../src/ingest/batch-writer.js';
import type { EventStore } from '../../src/ingest/event-store.js';
import { FilterGate } from '../../src/ingest/ingress-gate.js';
import { normalizeEvent } from '../../src/ingest/normalize.js';
import { EventPreparer, type PreparedEvents } from '../../src/ingest/prepare.js';
import { validateEvents } from '../../src/ingest/validate.js';
import { PostgresEventStore } from '../../src/modules/processes/event-store.postgres.js';
import { SqliteEventStore } from '../../src/modules/processes/event-store.sqlite.js';
import { BinaryCatalog } from '../../src/sensor/binaries.js';
import { Endpoint } from '../../src/sensor/endpoint.js';
import { startBenchPostgres } from './server.js';
import { calibrationLine } from '../support/calibration.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '400000' },
    sensors: { type: 'string', default: '32' },
    'batch-size': { type: 'string', default: '2000' },
    'events-per-commit': { type: 'string', default: '32000' },
  },
});
// The machine's calibration, to read the figures below on another machine (bench/support/calibration.ts).
console.log(await calibrationLine());
const total = Number(values.events);
const batchSize = Number(values['batch-size']);
const sensorCount = Number(values.sensors);
const perCommit = Math.max(1, Math.floor(Number(values['events-per-commit']) / batchSize));
const RULES = { maxEventsPerSegment: 10_000, windowMs: 600_000 };

const binaries = new BinaryCatalog('1');
const endpoints = Array.from({ length: sensorCount }, (_, index) => new Endpoint({ seed: '1', index, startMs: Date.now(), binaries }));
const batches: { sensor: number; prepared: PreparedEvents }[] = [];
const preparer = new EventPreparer(new FilterGate());
for (let made = 0; made < total; made += batchSize) {
  const sensor = batches.length % sensorCount;
  const endpoint = endpoints[sensor]!;
  const events = validateEvents(JSON.parse(JSON.stringify(endpoint.take(batchSize))) as unknown[]).valid.map(normalizeEvent);
  batches.push({ sensor, prepared: preparer.prepare({ sensorId: sensor + 1, groupId: 1, osType: endpoint.os }, events) });
}

async function registerSensors(db: SqlDatabase): Promise<void> {
  for (const endpoint of endpoints) {
    await db.run(
      `INSERT INTO sensors (group_id, secret_hash, os_type, host_type, computer_name, build_version_string, registration_ms)
       VALUES (1, 'x', ?, 'workstation', ?, '006.001.002.71109', 0)`,
      [endpoint.os, endpoint.hostname],
    );
  }
}

/** Commits every batch through the server's group commit (BatchWriter); wall time and this process's CPU. */
async function drive(store: EventStore): Promise<{ eps: number; node_us_per_event: number }> {
  const sequences = new Array<number>(sensorCount).fill(0);
  const writer = new BatchWriter(store, perCommit * batchSize);
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await Promise.all(batches.map(({ sensor, prepared }) => {
    const e = endpoints[sensor]!;
    return writer.write({ sensor: { id: sensor + 1, groupId: 1, hostname: e.hostname, hostType: 'workstation', osType: e.os }, sequence: ++sequences[sensor]!, ...prepared, counters: new Map() });
  }));
  const cpu = process.cpuUsage(cpuBefore);
  return { eps: Math.round((total / (performance.now() - started)) * 1000), node_us_per_event: round((cpu.user + cpu.system) / total) };
}

const round = (n: number) => Math.round(n * 100) / 100;

const results: Record<string, unknown> = { events: total, sensors: sensorCount, events_per_commit: perCommit * batchSize };

const sqliteDir = mkdtempSync(join(tmpdir(), 'vigil-bench-pg-ingest-sqlite-'));
try {
  const db = await openDatabase(loadConfig({ dataDir: sqliteDir }));
  await registerSensors(db);
  results.sqlite = await drive(new SqliteEventStore(db as never, RULES));
  await db.close();
} finally {
  rmSync(sqliteDir, { recursive: true, force: true });
}

const server = await startBenchPostgres();
try {
  const db = PostgresDatabase.open(server.url, { poolSize: 4 });
  await migrate(db, postgresMigrations);
  await registerSensors(db);
  const before = server.cpuSeconds();
  const driven = await drive(new PostgresEventStore(db, RULES));
  const serverUs = ((server.cpuSeconds() - before) * 1e6) / total;
  const size = await db.get<{ bytes: number }>('SELECT pg_database_size(current_database()) AS bytes');
  results.postgres = { ...driven, server_us_per_event: round(serverUs), db_bytes_per_event: Math.round(size!.bytes / total) };
  await db.close();
} finally {
  await server.stop();
}
console.log(JSON.stringify(results));
