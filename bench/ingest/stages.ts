/**
 * bench/ingest/stages: the ingest path stage by stage, in one process, on the simulator's
 * workload — where the microseconds per event go, without HTTP or a second process competing.
 *
 *   node --import tsx bench/ingest/stages.ts [--events 400000] [--sensors 16] [--batch-size 2000]
 *
 * Prints one JSON line: events per CPU second of each stage alone (simulator side: generate, stringify, gzip;
 * server side: gunzip, parse, validate, normalize, prepare, store commit, the latter also per wall second) and the store's size;
 * and `server_request_path_eps`: the request thread's part of an upload, batch by batch as the server runs it
 * (decodeBatch with its thread-pool gunzip, validate, normalize, prepare, and serializing the batch for the
 * writer thread as postMessage does),
 * less HTTP and TLS.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { decodeBatch } from '../../src/ingest/decode.js';
import { loadConfig } from '../../src/config/load.js';
import { openDatabase, SQLITE_FILE } from '../../src/db/open.js';
import type { SensorEvent } from '../../src/ingest/event.schemas.js';
import { FilterGate } from '../../src/ingest/ingress-gate.js';
import { EventPreparer } from '../../src/ingest/prepare.js';
import { normalizeEvent } from '../../src/ingest/normalize.js';
import { validateEvents } from '../../src/ingest/validate.js';
import { SqliteEventStore } from '../../src/modules/processes/event-store.sqlite.js';
import { BinaryCatalog } from '../../src/sensor/binaries.js';
import { Endpoint } from '../../src/sensor/endpoint.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '400000' },
    sensors: { type: 'string', default: '16' },
    'batch-size': { type: 'string', default: '2000' },
    'events-per-commit': { type: 'string', default: '20000' },
  },
});
const total = Number(values.events);
const batchSize = Number(values['batch-size']);
const sensorCount = Number(values.sensors);

function timed<T>(stage: string, rates: Record<string, number>, work: () => T): T {
  const cpuBefore = process.cpuUsage();
  const result = work();
  const cpu = process.cpuUsage(cpuBefore);
  rates[`${stage}_eps`] = Math.round((total / (cpu.user + cpu.system)) * 1e6);
  return result;
}

const rates: Record<string, number> = {};
const binaries = new BinaryCatalog('1');
const endpoints = Array.from({ length: sensorCount }, (_, index) => new Endpoint({ seed: '1', index, startMs: Date.now(), binaries }));
const batches = timed('simulator_generate', rates, () => {
  const out: { sensor: number; events: SensorEvent[] }[] = [];
  for (let made = 0; made < total; made += batchSize) {
    const sensor = out.length % sensorCount;
    out.push({ sensor, events: endpoints[sensor]!.take(batchSize) });
  }
  return out;
});
const texts = timed('simulator_stringify', rates, () => batches.map((b, i) => JSON.stringify({ sequence: i + 1, events: b.events })));
const bodies = timed('simulator_gzip1', rates, () => texts.map((t) => gzipSync(t, { level: 1 })));
const inflated = timed('server_gunzip', rates, () => bodies.map((b) => gunzipSync(b)));
const parsed = timed('server_parse', rates, () => inflated.map((b) => JSON.parse(b.toString('utf8')) as { sequence: number; events: unknown[] }));
const valid = timed('server_validate', rates, () => parsed.map((p) => validateEvents(p.events).valid));
const normalized = timed('server_normalize', rates, () => valid.map((events) => events.map(normalizeEvent)));
const preparer = new EventPreparer(new FilterGate());
const prepared = timed('server_prepare', rates, () => normalized.map((events, i) => {
  const endpoint = endpoints[batches[i]!.sensor]!;
  return preparer.prepare({ sensorId: batches[i]!.sensor + 1, groupId: 1, osType: endpoint.os }, events);
}));

// Last, on fresh copies of the bodies, so that the stages above left nothing for it to reuse.
const pathPreparer = new EventPreparer(new FilterGate());
const pathBodies = bodies.map((body) => Buffer.from(body));
// Nobody listens on the other side, so only the sending thread's half of postMessage is timed.
const handOff = new MessageChannel();
const pathCpuBefore = process.cpuUsage();
for (const [i, body] of pathBodies.entries()) {
  const batch = await decodeBatch(body, 'gzip', 64 * 1024 * 1024);
  const { valid: events } = validateEvents(batch.events);
  for (const event of events) normalizeEvent(event);
  const endpoint = endpoints[batches[i]!.sensor]!;
  handOff.port1.postMessage(pathPreparer.prepare({ sensorId: batches[i]!.sensor + 1, groupId: 1, osType: endpoint.os }, events));
}
const pathCpu = process.cpuUsage(pathCpuBefore);
handOff.port1.close();
rates.server_request_path_eps = Math.round((total / (pathCpu.user + pathCpu.system)) * 1e6);

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-stages-'));
try {
  const db = await openDatabase(loadConfig({ dataDir }));
  for (let i = 0; i < sensorCount; i++) {
    await db.run(
      `INSERT INTO sensors (group_id, secret_hash, os_type, host_type, computer_name, build_version_string, registration_ms)
       VALUES (1, 'x', ?, 'workstation', ?, '006.001.002.71109', 0)`,
      [endpoints[i]!.os, endpoints[i]!.hostname],
    );
  }
  const store = new SqliteEventStore(db, { maxEventsPerSegment: 10_000, windowMs: 600_000 });
  const perCommit = Math.max(1, Math.floor(Number(values['events-per-commit']) / batchSize));
  const sequences = new Array<number>(sensorCount).fill(0);
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < prepared.length; i += perCommit) {
    await store.commit(prepared.slice(i, i + perCommit).map((preparedEvents, j) => {
      const sensor = batches[i + j]!.sensor;
      const e = endpoints[sensor]!;
      return { sensor: { id: sensor + 1, groupId: 1, hostname: e.hostname, hostType: 'workstation', osType: e.os }, sequence: ++sequences[sensor]!, ...preparedEvents, counters: new Map() };
    }));
  }
  rates.server_store_eps = Math.round((total / (performance.now() - started)) * 1000);
  const cpu = process.cpuUsage(cpuBefore);
  // Per CPU second: steadier than wall time on a shared machine, and what a second core could add.
  rates.server_store_eps_cpu = Math.round((total / (cpu.user + cpu.system)) * 1e6);
  const rows = Object.fromEntries(
    await Promise.all(['processes', 'segments', 'segment_chunks', 'event_postings', 'process_postings'].map(async (table) => [table, (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n])),
  );
  await db.close();
  const dbBytes = statSync(join(dataDir, SQLITE_FILE)).size;
  console.log(JSON.stringify({ events: total, ...rates, db_bytes_per_event: Math.round(dbBytes / total), rows, rss_mb: Math.round(process.memoryUsage().rss / 1e6) }));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
