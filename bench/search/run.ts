/**
 * bench/search: the search query set timed through the real HTTP app (plain HTTP on loopback) on
 * the generated data (generate.ts; about 2M segments, 6M events), while simulated sensors keep
 * uploading events (ingest-load.ts, another process) and a probe keeps asking GET /api/info. Each run works on a copy of the cached
 * data dir, so runs start from the same data.
 *
 *   node --import tsx bench/search/run.ts [--dir /tmp/vigil-bench-search] [--iterations 20] [--ingest-rate 5000]
 *        [--watchlist-hits]   (the copy tagged by three watchlists first: dataset.ts addWatchlistHits)
 *        [--store postgres [--database-url postgres://…] [--shared-buffers 2GB]] [--segments 2000000]
 *
 * `--store postgres` runs the app on PostgreSQL (`vigil serve --database-url`'s container) on a
 * copy of the dataset generate.ts wrote there (postgres-dataset.ts; default dir
 * /tmp/vigil-bench-search-pg), with the same queries and background ingest; the totals must agree
 * with the embedded dataset's of the same size. `--shared-buffers` starts the embedded PostgreSQL
 * with that buffer cache instead of its default 128 MB (the dataset is 3.2 GB).
 *
 * Prints per query the first (cold) time and the median, p95 and max over the iterations (each a
 * count and a page of 100 rows, or facets), the event loop's largest stall (and, for comparison,
 * that of an idle process on the same machine), the probe's slowest answer and the ingest rate
 * achieved, as one JSON line after a table.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { createContainer } from '../../src/container.js';
import { loadAverage } from '../support/proc.js';
import { startIngestLoad, startNoiseProbe } from './background.js';
import { addWatchlistHits, copyDataset } from './dataset.js';
import { DEFAULT_DIR, DEFAULT_POSTGRES_DIR, generate, type Manifest } from './generate.js';
import { openDatasetServer } from './postgres-dataset.js';
import { calibrationLine } from '../support/calibration.js';

const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    store: { type: 'string', default: 'embedded' },
    'database-url': { type: 'string' },
    'shared-buffers': { type: 'string' },
    segments: { type: 'string', default: '2000000' },
    iterations: { type: 'string', default: '20' },
    'ingest-rate': { type: 'string', default: '5000' },
    'ingest-sensors': { type: 'string', default: '4' },
    workers: { type: 'string', default: '2' },
    'watchlist-hits': { type: 'boolean', default: false },
  },
});
// The machine's calibration, to read the figures below on another machine (bench/support/calibration.ts).
console.log(await calibrationLine());

const dataset = { segments: Number(values.segments), sensors: 200, days: 14, batchSize: 5 };

/** The run's copy of the dataset and the settings of an app on it. */
async function openRunStore(): Promise<{ manifest: Manifest; runDir: string; databaseUrl?: string; postgresCpu?: () => number; close: () => Promise<void> }> {
  if (values.store !== 'postgres') {
    const dir = values.dir ?? DEFAULT_DIR;
    const manifest = await generate(dir, dataset);
    const runDir = copyDataset(dir, 'vigil-bench-search-run-');
    if (values['watchlist-hits']) addWatchlistHits(runDir);
    return { manifest, runDir, close: async () => rmSync(runDir, { recursive: true, force: true }) };
  }
  if (values['watchlist-hits']) throw new Error('--watchlist-hits tags the embedded store only');
  const dir = values.dir ?? DEFAULT_POSTGRES_DIR;
  const sharedBuffers = values['shared-buffers'];
  const server = await openDatasetServer(dir, values['database-url'], sharedBuffers ? { shared_buffers: sharedBuffers } : {});
  const manifest = await generate(dir, dataset, { kind: 'postgres', server });
  const databaseUrl = await server.copyForRun();
  // Only the secret key lives here: the data is the database's.
  const runDir = mkdtempSync(join(tmpdir(), 'vigil-bench-search-run-'));
  return {
    manifest, runDir, databaseUrl, postgresCpu: server.cpuSeconds,
    async close() {
      await server.stop();
      rmSync(runDir, { recursive: true, force: true });
    },
  };
}

const runStore = await openRunStore();
const manifest = runStore.manifest;
const day = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** The fixed query set of issue 4 item 7; each asks for the count and the first 100 rows unless it says otherwise. */
const QUERIES: { name: string; params: Record<string, string | string[]> }[] = [
  { name: 'one term', params: { q: 'process_name:svchost.exe' } },
  { name: 'two terms', params: { q: 'process_name:powershell.exe username:corp\\peggy' } },
  { name: 'leading-wildcard cmdline', params: { q: 'cmdline:*update*' } },
  { name: 'hostname prefix', params: { q: 'hostname:web*' } },
  { name: 'time-restricted', params: { q: 'process_name:chrome.exe', 'cb.min_last_update': iso(manifest.endMs - day) } },
  { name: 'event field (domain)', params: { q: 'domain:microsoft.com' } },
  { name: 'sorted page at start=10000', params: { q: 'os_type:windows', sort: 'start desc', start: '10000' } },
  { name: 'grouped by process', params: { q: 'process_name:chrome.exe', 'cb.group': 'id' } },
  { name: 'facets on two fields, all rows', params: { q: '', rows: '0', facet: 'true', 'facet.field': ['process_name', 'hostname'] } },
];

const container = await createContainer(loadConfig({ dataDir: runStore.runDir, databaseUrl: runStore.databaseUrl, tls: false, port: 0, logLevel: 'silent', ...(runStore.databaseUrl === undefined && { searchWorkers: Number(values.workers) }) }));
const app = await buildApp(container, { logRequests: false });
const server = await app.listen({ host: '127.0.0.1', port: 0 });
const token = (await container.services.users.bootstrapAdmin())!;

async function timed(path: string): Promise<{ ms: number; body: string }> {
  const began = performance.now();
  const response = await fetch(`${server}${path}`, { headers: { 'X-Auth-Token': token } });
  const body = await response.text();
  if (!response.ok) throw new Error(`${path}: ${response.status} ${body}`);
  return { ms: performance.now() - began, body };
}

function queryPath(params: Record<string, string | string[]>): string {
  const search = new URLSearchParams({ rows: '100', 'cb.urlver': '1' });
  for (const [key, value] of Object.entries(params)) {
    search.delete(key);
    for (const item of Array.isArray(value) ? value : [value]) search.append(key, item);
  }
  return `/api/v1/process?${search}`;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (ms: number) => Math.round(ms * 10) / 10;

const loadBefore = loadAverage();
const cold = new Map<string, number>();
const totals = new Map<string, number>();
for (const query of QUERIES) {
  const { ms, body } = await timed(queryPath(query.params));
  cold.set(query.name, ms);
  totals.set(query.name, (JSON.parse(body) as { total_results: number }).total_results);
}

const askedIngestRate = Number(values['ingest-rate']);
const ingest = askedIngestRate > 0
  ? await startIngestLoad({ server, token, rate: askedIngestRate, sensors: Number(values['ingest-sensors']) })
  : { stop: async () => 0 };
const noise = startNoiseProbe();
const stall = monitorEventLoopDelay({ resolution: 10 });
stall.enable();
const stop = new AbortController();
let probeMax = 0;
const probing = (async () => {
  while (!stop.signal.aborted) {
    probeMax = Math.max(probeMax, (await timed('/api/info')).ms);
    await sleep(50);
  }
})();
await sleep(2_000); // ingest under way before the timings start

// Where the timed queries' time goes: this process (app, search workers, the probe) and PostgreSQL.
const cpuBefore = { app: process.cpuUsage(), postgres: runStore.postgresCpu?.(), wallMs: performance.now() };
const samples = new Map<string, number[]>(QUERIES.map((q) => [q.name, []]));
for (let i = 0; i < Number(values.iterations); i++) {
  for (const query of QUERIES) samples.get(query.name)!.push((await timed(queryPath(query.params))).ms);
}
const appCpu = process.cpuUsage(cpuBefore.app);
const timedWallS = (performance.now() - cpuBefore.wallMs) / 1000;
const postgresCpu = cpuBefore.postgres === undefined ? undefined : runStore.postgresCpu!() - cpuBefore.postgres;
stall.disable();
stop.abort();
const [ingestRate, machineStall] = await Promise.all([ingest.stop(), noise.stop(), probing]);

const rows = QUERIES.map((query) => {
  const sorted = [...samples.get(query.name)!].sort((a, b) => a - b);
  return {
    query: query.name, total_results: totals.get(query.name), cold_ms: round(cold.get(query.name)!),
    median_ms: round(percentile(sorted, 50)), p95_ms: round(percentile(sorted, 95)), max_ms: round(sorted.at(-1)!),
  };
});
console.table(rows);
console.log(JSON.stringify({
  store: values.store, dataset: { segments: manifest.storedSegments, events: manifest.events, processes: manifest.processes },
  iterations: Number(values.iterations), workers: Number(values.workers), watchlist_hits: values['watchlist-hits'], queries: rows,
  event_loop_max_stall_ms: round(stall.max / 1e6), event_loop_p99_ms: round(stall.percentile(99) / 1e6),
  idle_process_max_stall_ms: round(machineStall),
  info_probe_max_ms: round(probeMax), ingest_events_per_s: Math.round(ingestRate),
  timed_cpu_s: { wall: round(timedWallS), app: round((appCpu.user + appCpu.system) / 1e6), postgres: postgresCpu === undefined ? undefined : round(postgresCpu) },
  load_average: [loadBefore, loadAverage()],
}));

await app.close();
await container.close();
await runStore.close();
