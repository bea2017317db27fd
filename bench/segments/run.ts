/**
 * bench/segments: reading a process segment's events (issue 5 item 5) on a copy of the search
 * benchmark's 2M-segment dataset (bench/search/generate.ts), through the real HTTP app.
 *
 *   node --import tsx bench/segments/run.ts [--dir /tmp/vigil-bench-search] [--iterations 30] [--settle-seconds 15]
 *
 * Before the app starts, processes are added to the copy through the real ingest preparation and
 * event store (as generate.ts writes): SMALL processes with one 30-event segment, LARGE ones with
 * one 10,000-event segment, and one HUGE process of HUGE_SEGMENTS full segments. Then, per size,
 * GET /api/v1–v4/process/{id}/{segment}/event and the v1 summary are timed (median, p95 over the
 * iterations, cycling through the processes); segment 0 of the huge process (every segment merged)
 * is timed with the event loop's largest stall and the slowest answer of a probe asking
 * GET /api/info every 20 ms meanwhile; and, for comparison, how long decoding and formatting that
 * process's events takes on the calling thread (what the request thread did before large reads
 * moved to the read workers). Prints a table and one JSON line.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { createContainer } from '../../src/container.js';
import { SqliteDatabase } from '../../src/db/dialects/sqlite.js';
import { SQLITE_FILE } from '../../src/db/open.js';
import { processId } from '../../src/domain/process-id.js';
import type { SensorEvent } from '../../src/ingest/event.schemas.js';
import { FilterGate } from '../../src/ingest/ingress-gate.js';
import { normalizeEvent } from '../../src/ingest/normalize.js';
import { EventPreparer } from '../../src/ingest/prepare.js';
import { readSegmentChunks } from '../../src/modules/processes/chunk-files.sqlite.js';
import { decodeChunk } from '../../src/ingest/event-codec.js';
import { SqliteEventStore } from '../../src/modules/processes/event-store.sqlite.js';
import { eventLists } from '../../src/modules/processes/process-events.js';
import type { SensorIdentity } from '../../src/domain/sensor-identity.js';
import { copyDataset } from '../search/dataset.js';
import { DEFAULT_DIR, readManifest } from '../search/generate.js';

const { values } = parseArgs({
  options: {
    dir: { type: 'string', default: DEFAULT_DIR },
    iterations: { type: 'string', default: '30' },
    'settle-seconds': { type: 'string', default: '15' },
  },
});
const SMALL = { processes: 20, events: 30 };
const LARGE = { processes: 5, events: 10_000 };
const HUGE_SEGMENTS = 20;
const iterations = Number(values.iterations);

if (!readManifest(values.dir!)) throw new Error(`no dataset in ${values.dir}: run bench/search/generate.ts first`);
const runDir = copyDataset(values.dir!, 'vigil-bench-segments-run-');

/** A process's events as a busy Windows process sends them: files, modules, connections, registry. */
function activity(pid: number, startMs: number, count: number): SensorEvent[] {
  const base = { pid, process_start: startMs };
  const events: unknown[] = [{
    type: 'process_start', ts: startMs, ...base, path: 'C:\\Program Files\\Bench\\worker.exe', cmdline: `worker.exe --job ${pid}`,
    username: 'CORP\\bench', md5: 'ab'.repeat(16),
  }];
  for (let i = 1; i < count; i++) {
    const ts = startMs + i * 10;
    switch (i % 4) {
      case 0: events.push({ type: 'filemod', ts, ...base, action: 'last_write', path: `C:\\Users\\bench\\AppData\\Local\\Temp\\out-${i % 500}.tmp`, md5: 'cd'.repeat(16) }); break;
      case 1: events.push({ type: 'modload', ts, ...base, path: `C:\\Windows\\System32\\lib${i % 60}.dll`, md5: (i % 60).toString(16).padStart(2, '0').repeat(16) }); break;
      case 2: events.push({ type: 'netconn', ts, ...base, direction: 'outbound', proto: 6, remote_ip: `10.20.${i % 250}.${i % 200}`, remote_port: 443, domain: `svc${i % 300}.corp.example` }); break;
      default: events.push({ type: 'regmod', ts, ...base, action: 'first_write', path: `\\REGISTRY\\MACHINE\\SOFTWARE\\Bench\\k${i % 800}` });
    }
  }
  return events as SensorEvent[];
}

interface Added {
  id: string;
  key: { sensorId: number; pid: number; startMs: number };
  segments: number[];
}

/** Writes the benchmark's processes into the copy through EventPreparer and SqliteEventStore.commit. */
async function addProcesses(): Promise<{ small: Added[]; large: Added[]; huge: Added }> {
  const db = SqliteDatabase.open(join(runDir, SQLITE_FILE));
  const sensorRow = (await db.get<{ id: number; group_id: number; computer_name: string; host_type: string; os_type: string }>(
    "SELECT id, group_id, computer_name, host_type, os_type FROM sensors WHERE os_type = 'windows' ORDER BY id LIMIT 1",
  ))!;
  const sensor: SensorIdentity = {
    id: sensorRow.id, groupId: sensorRow.group_id, hostname: sensorRow.computer_name,
    hostType: sensorRow.host_type as SensorIdentity['hostType'], osType: sensorRow.os_type as SensorIdentity['osType'],
  };
  let serverMs = Date.now();
  // One commit per segment: each later commit of a process opens its next segment.
  const store = new SqliteEventStore(db, { maxEventsPerSegment: 10_000, windowMs: 1 }, () => serverMs);
  const preparer = new EventPreparer(new FilterGate());
  let sequence = 1_000_000_000;
  let pid = 900_000;
  const startMs = serverMs - 3_600_000;
  const add = async (segments: number, events: number): Promise<Added> => {
    const all = activity(++pid, startMs, segments * events).map(normalizeEvent);
    for (let i = 0; i < segments; i++) {
      const prepared = preparer.prepare({ sensorId: sensor.id, groupId: sensor.groupId, osType: sensor.osType }, all.slice(i * events, (i + 1) * events));
      await store.commit([{ sensor, sequence: ++sequence, ...prepared, counters: new Map() }]);
      serverMs += 1_000;
    }
    const rows = await db.all<{ segment_id: number; event_count: number }>(
      'SELECT s.segment_id, s.event_count FROM segments s JOIN processes p ON p.id = s.process_id WHERE p.sensor_id = ? AND p.pid = ? AND p.start_ms = ? ORDER BY s.segment_id',
      [sensor.id, pid, startMs],
    );
    if (rows.length !== segments || rows.some((row) => row.event_count !== events)) throw new Error(`unexpected segments ${JSON.stringify(rows)}`);
    const key = { sensorId: sensor.id, pid, startMs };
    return { id: processId(key), key, segments: rows.map((row) => row.segment_id) };
  };
  const small = [];
  for (let i = 0; i < SMALL.processes; i++) small.push(await add(1, SMALL.events));
  const large = [];
  for (let i = 0; i < LARGE.processes; i++) large.push(await add(1, LARGE.events));
  const huge = await add(HUGE_SEGMENTS, LARGE.events);
  await db.close();
  return { small, large, huge };
}

const writeBegan = performance.now();
const added = await addProcesses();
const writeSeconds = (performance.now() - writeBegan) / 1000;

const container = await createContainer(loadConfig({ dataDir: runDir, tls: false, port: 0, logLevel: 'silent' }));
const app = await buildApp(container, { logRequests: false });
const server = await app.listen({ host: '127.0.0.1', port: 0 });
const token = (await container.services.users.bootstrapAdmin())!;
// Each read worker starts by building its facet tallies over the whole dataset (about 2 s of CPU
// each, bench/search measures it); reads timed meanwhile would measure that instead of themselves.
await sleep(Number(values['settle-seconds']) * 1000);

async function timed(path: string): Promise<number> {
  const began = performance.now();
  const response = await fetch(`${server}${path}`, { headers: { 'X-Auth-Token': token } });
  const body = await response.text();
  if (!response.ok) throw new Error(`${path}: ${response.status} ${body.slice(0, 200)}`);
  return performance.now() - began;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (ms: number) => Math.round(ms * 10) / 10;

const ROUTES = [
  { name: 'v1 events', path: (id: string, segment: number) => `/api/v1/process/${id}/${segment}/event` },
  { name: 'v2 events', path: (id: string, segment: number) => `/api/v2/process/${id}/${segment}/event` },
  { name: 'v3 events', path: (id: string, segment: number) => `/api/v3/process/${id}/${segment}/event` },
  { name: 'v4 events', path: (id: string, segment: number) => `/api/v4/process/${id}/${segment}/event` },
  { name: 'v1 summary', path: (id: string, segment: number) => `/api/v1/process/${id}/${segment}` },
];

const rows = [];
for (const [size, processes] of [['30 events', added.small], ['10,000 events', added.large]] as const) {
  for (const route of ROUTES) {
    const cold = await timed(route.path(processes[0]!.id, processes[0]!.segments[0]!));
    // A few untimed reads, so the samples measure the read rather than the route's first compilation.
    for (const process of processes.slice(0, 5)) await timed(route.path(process.id, process.segments[0]!));
    const samples: number[] = [];
    for (let i = 0; i < iterations; i++) {
      const process = processes[i % processes.length]!;
      samples.push(await timed(route.path(process.id, process.segments[0]!)));
    }
    samples.sort((a, b) => a - b);
    rows.push({ segment: size, route: route.name, cold_ms: round(cold), median_ms: round(percentile(samples, 50)), p95_ms: round(percentile(samples, 95)) });
  }
}

/** Segment 0 of the huge process, with the event loop watched and /api/info probed meanwhile. */
async function mergedRead(): Promise<{ ms: number; stallMs: number; probeMs: number }> {
  const stall = monitorEventLoopDelay({ resolution: 5 });
  const stop = new AbortController();
  let probeMs = 0;
  const probing = (async () => {
    while (!stop.signal.aborted) {
      probeMs = Math.max(probeMs, await timed('/api/info'));
      await sleep(20);
    }
  })();
  await sleep(100);
  stall.enable();
  const ms = await timed(`/api/v1/process/${added.huge.id}/0/event`);
  stall.disable();
  stop.abort();
  await probing;
  return { ms, stallMs: stall.max / 1e6, probeMs };
}
const merged = [];
for (let i = 0; i < 3; i++) merged.push(await mergedRead());

// What the request thread did before: read, decode and format the same events itself.
const db = SqliteDatabase.open(join(runDir, SQLITE_FILE));
const { key } = added.huge;
const inlineBegan = performance.now();
const segmentRows = await db.all<{ id: number }>(
  `SELECT s.id FROM segments s JOIN processes p ON p.id = s.process_id
   WHERE p.sensor_id = ? AND p.pid = ? AND p.start_ms = ? ORDER BY s.id`,
  [key.sensorId, key.pid, key.startMs],
);
const bySegment = readSegmentChunks(db.connection, segmentRows.map((row) => row.id))
  .map((chunks) => chunks.flatMap((data) => decodeChunk(data, key.pid, key.startMs)));
const inlineLists = eventLists(bySegment, {}, 1, key.sensorId);
const inlineMs = performance.now() - inlineBegan;
await db.close();

console.table(rows);
const huge = {
  events: HUGE_SEGMENTS * LARGE.events,
  segments: HUGE_SEGMENTS,
  read_ms: merged.map((m) => round(m.ms)),
  event_loop_max_stall_ms: merged.map((m) => round(m.stallMs)),
  info_probe_max_ms: merged.map((m) => round(m.probeMs)),
  inline_decode_and_format_ms: round(inlineMs),
  inline_listed: Object.values(inlineLists.lists).reduce((n, list) => n + list.length, 0),
};
console.table([huge]);
console.log(JSON.stringify({ write_seconds: Math.round(writeSeconds), iterations, reads: rows, merged: huge }));

await app.close();
await container.close();
rmSync(runDir, { recursive: true, force: true });
