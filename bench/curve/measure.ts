/**
 * bench/curve/measure: one point of the curve — the real app (plain HTTP, loopback) on the curve's
 * store as generate.ts left it, and through it:
 *
 *   1. the query set (queries.ts), idle: first (cold) time, then median, p95 and max over the iterations;
 *   2. segment reads, v1–v4 events: a median-sized segment, the largest segments, and segment 0
 *      (every segment merged) of the process with the most segments;
 *   3. ingest alone: simulated sensors in another process (bench/search/ingest-load.ts) uploading
 *      as fast as the server takes it, for `ingest-seconds`;
 *   4. the same query set while that ingest keeps running, with the event loop's largest stall,
 *      an idle process's stall beside it (the machine's own), and the ingest rate meanwhile.
 *
 *   node --import tsx bench/curve/measure.ts [--dir /tmp/vigil-curve/data] [--iterations 20]
 *        [--ingest-seconds 20] [--ingest-sensors 32] [--ingest-batch 2000] [--settle-seconds 10]
 *        [--search-thread-nice N]   (config searchThreadNice; its default when absent)
 *
 * It works on the store itself, not a copy (a 50M-event copy would cost minutes and tens of GB):
 * the events ingested in steps 3 and 4 stay, from sensors of their own at the real clock, and the
 * JSON line reports the store's events before and after. Storage maintenance is held off (no
 * rollover, no retention) so that the generator's partitions stay as it made them.
 * Prints one JSON line.
 */
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { createContainer } from '../../src/container.js';
import { SQLITE_FILE } from '../../src/db/open.js';
import { processId } from '../../src/domain/process-id.js';
import { loadAverage } from '../support/proc.js';
import { startIngestLoad, startNoiseProbe } from '../search/background.js';
import { CURVE_DIR, readCurveManifest } from './generate.js';
import { curveQueries, queryPath, round1, summarize, timedGet } from './queries.js';

const { values } = parseArgs({
  options: {
    dir: { type: 'string', default: CURVE_DIR },
    iterations: { type: 'string', default: '20' },
    'ingest-seconds': { type: 'string', default: '20' },
    'ingest-sensors': { type: 'string', default: '32' },
    'ingest-batch': { type: 'string', default: '2000' },
    'settle-seconds': { type: 'string', default: '10' },
    'search-thread-nice': { type: 'string' },
  },
});
const dir = values.dir;
const manifest = readCurveManifest(dir);
if (!manifest) throw new Error(`no curve store in ${dir}: run bench/curve/generate.ts first`);
const iterations = Number(values.iterations);

interface SegmentPick {
  label: string;
  id: string;
  segment: number;
  events: number;
}

/** The store's size and the segments to read, from a read-only connection before the app opens. */
function inspectStore(): { events: number; segments: number; processes: number; picks: SegmentPick[] } {
  const db = new Database(join(dir, SQLITE_FILE), { readonly: true });
  try {
    const sizes = db.prepare('SELECT sum(event_count) AS events, count(*) AS segments FROM segments').get() as { events: number; segments: number };
    const processes = db.prepare('SELECT count(*) FROM processes').pluck().get() as number;
    const row = (sql: string) => db.prepare(`SELECT p.sensor_id, p.pid, p.start_ms, s.segment_id, s.event_count FROM segments s JOIN processes p ON p.id = s.process_id ${sql}`)
      .get() as { sensor_id: number; pid: number; start_ms: number; segment_id: number; event_count: number };
    const pick = (label: string, sql: string): SegmentPick => {
      const found = row(sql);
      return { label, id: processId({ sensorId: found.sensor_id, pid: found.pid, startMs: found.start_ms }), segment: found.segment_id, events: found.event_count };
    };
    const median = Math.max(1, Math.round(sizes.events / sizes.segments));
    const longest = db.prepare('SELECT process_id, count(*) AS n, sum(event_count) AS events FROM segments GROUP BY process_id ORDER BY n DESC LIMIT 1')
      .get() as { process_id: number; n: number; events: number };
    const merged = pick(`segment 0 of the longest-lived process (${longest.n} segments)`, `WHERE s.process_id = ${longest.process_id} LIMIT 1`);
    return {
      ...sizes, processes,
      picks: [
        pick('typical segment', `WHERE s.event_count = ${median} AND s.id % 97 = 0 LIMIT 1`),
        pick('largest segment', 'ORDER BY s.event_count DESC LIMIT 1'),
        { ...merged, segment: 0, events: longest.events },
      ],
    };
  } finally {
    db.close();
  }
}

const before = inspectStore();
const container = await createContainer(loadConfig({
  dataDir: dir, tls: false, port: 0, logLevel: 'silent', searchWorkers: 2, partitionRolloverDays: 100_000, retentionMaxAgeDays: 0, partitionMaxBytes: 0,
  ...(values['search-thread-nice'] === undefined ? {} : { searchThreadNice: Number(values['search-thread-nice']) }),
}));
const app = await buildApp(container, { logRequests: false });
const server = await app.listen({ host: '127.0.0.1', port: 0 });
const token = await container.services.users.addFromShell({ username: `curve-${Date.now()}`, globalAdmin: true });
const get = (path: string) => timedGet(server, token, path);
const queries = curveQueries(manifest.endMs);

/** Each query once (its cold time and total), then `iterations` rounds of the whole set. */
async function timeQueries(): Promise<{ cold: Map<string, { ms: number; total: number }>; samples: Map<string, number[]> }> {
  const cold = new Map<string, { ms: number; total: number }>();
  for (const query of queries) {
    const { ms, body } = await get(queryPath(query.params));
    cold.set(query.name, { ms, total: (JSON.parse(body) as { total_results: number }).total_results });
  }
  const samples = new Map<string, number[]>(queries.map((query) => [query.name, []]));
  for (let i = 0; i < iterations; i++) {
    for (const query of queries) samples.get(query.name)!.push((await get(queryPath(query.params))).ms);
  }
  return { cold, samples };
}

/** Ingest as fast as it goes beside the searches: the rate asked for is no limit. */
const startIngest = () => startIngestLoad({
  server, token, rate: 100_000_000, sensors: Number(values['ingest-sensors']), batch: values['ingest-batch'],
});

const loadAtStart = loadAverage();
// The read workers build their facet tallies first; the idle figures should measure searches, not that.
await sleep(Number(values['settle-seconds']) * 1000);

const idleStall = monitorEventLoopDelay({ resolution: 10 });
idleStall.enable();
const idle = await timeQueries();
idleStall.disable();

const segmentReads = [];
for (const pick of before.picks) {
  for (const version of [1, 2, 3, 4]) {
    const path = `/api/v${version}/process/${pick.id}/${pick.segment}/event`;
    const cold = (await get(path)).ms;
    const samples: number[] = [];
    for (let i = 0; i < Math.min(iterations, 10); i++) samples.push((await get(path)).ms);
    segmentReads.push({ segment: pick.label, events: pick.events, route: `v${version} events`, cold_ms: round1(cold), ...summarize(samples) });
  }
}

const ingest = await startIngest();
await sleep(Number(values['ingest-seconds']) * 1000);
const ingestAlone = await ingest.stop();

const loaded = await startIngest();
const noise = startNoiseProbe();
await sleep(2_000);
const loadedStall = monitorEventLoopDelay({ resolution: 10 });
loadedStall.enable();
const underIngest = await timeQueries();
loadedStall.disable();
const [ingestUnderSearch, machineStall] = await Promise.all([loaded.stop(), noise.stop()]);
const loadAtEnd = loadAverage();

await app.close();
await container.close();
const after = inspectStore();

const queryRows = queries.map((query) => {
  const cold = idle.cold.get(query.name)!;
  return {
    query: query.name, facets: query.facets === true, total_results: cold.total, cold_ms: round1(cold.ms),
    idle: summarize(idle.samples.get(query.name)!), under_ingest: summarize(underIngest.samples.get(query.name)!),
  };
});
console.log(JSON.stringify({
  events: before.events, segments: before.segments, processes: before.processes, events_after: after.events,
  partitions: manifest.legs.at(-1)?.partitions, generator_leg: manifest.legs.at(-1), iterations, queries: queryRows, segment_reads: segmentReads,
  idle_event_loop_max_stall_ms: round1(idleStall.max / 1e6),
  under_ingest_event_loop_max_stall_ms: round1(loadedStall.max / 1e6), idle_process_max_stall_ms: round1(machineStall),
  ingest_alone_events_per_s: Math.round(ingestAlone), ingest_under_search_events_per_s: Math.round(ingestUnderSearch),
  search_thread_nice: container.config.searchThreadNice, load_average: [loadAtStart, loadAtEnd], date: new Date().toISOString(),
}));
