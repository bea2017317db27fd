/**
 * bench/curve/stalls: what the request thread's long event-loop stalls are while the curve's
 * queries run under full ingest — measure.ts's step 4 alone, on any curve store, with every gap
 * over `--gap-ms` listed beside the garbage collections (perf_hooks 'gc' entries) that overlap it,
 * the thread's time on a CPU and waiting for one meanwhile (/proc/thread-self/schedstat) and the
 * query in flight, and an idle process's largest stall beside it (the machine's own).
 * A quick loop for issue 22 point 3 on a small store; measure.ts gives the figure that counts.
 *
 *   node --import tsx bench/curve/stalls.ts --dir STORE [--seconds 30] [--ingest-sensors 32]
 *        [--ingest-batch 2000] [--gap-ms 30] [--mode both|ingest|search]
 *
 * The store is changed (the ingested events stay): run it on a copy. Prints one JSON line.
 */
import { constants, monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { createContainer } from '../../src/container.js';
import { loadAverage } from '../support/proc.js';
import { startIngestLoad, startNoiseProbe } from '../search/background.js';
import { readCurveManifest } from './generate.js';
import { curveQueries, queryPath, round1, timedGet } from './queries.js';

const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    seconds: { type: 'string', default: '30' },
    'ingest-sensors': { type: 'string', default: '32' },
    'ingest-batch': { type: 'string', default: '2000' },
    'gap-ms': { type: 'string', default: '30' },
    mode: { type: 'string', default: 'both' },
  },
});
const dir = values.dir!;
const manifest = readCurveManifest(dir);
if (!manifest) throw new Error(`no curve store in ${dir}`);
const gapMs = Number(values['gap-ms']);

const container = await createContainer(loadConfig({
  dataDir: dir, tls: false, port: 0, logLevel: 'silent', searchWorkers: 2, partitionRolloverDays: 100_000, retentionMaxAgeDays: 0, partitionMaxBytes: 0,
}));
const app = await buildApp(container, { logRequests: false });
const server = await app.listen({ host: '127.0.0.1', port: 0 });
const token = await container.services.users.addFromShell({ username: `stalls-${Date.now()}`, globalAdmin: true });
const queries = curveQueries(manifest.endMs);

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge', [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental', [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};
interface Span { at: number; ms: number }
const gcs: (Span & { kind: string })[] = [];
const gcObserver = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gcs.push({ at: entry.startTime, ms: entry.duration, kind: GC_KINDS[(entry as { detail?: { kind?: number } }).detail?.kind ?? -1] ?? 'other' });
  }
});
/** The request thread's time on a CPU and waiting for one (runnable, not running) so far, in ms (Linux). */
function schedMs(): { cpu: number; waiting: number } {
  const [cpu, waiting] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ').map(Number);
  return { cpu: cpu! / 1e6, waiting: waiting! / 1e6 };
}
const gaps: (Span & { inflight: string; cpu: number; waiting: number })[] = [];
let inflight = '-';

const loaded = values.mode === 'search' ? undefined : await startIngestLoad({
  server, token, rate: 100_000_000, sensors: Number(values['ingest-sensors']), batch: values['ingest-batch'],
});
const noise = startNoiseProbe();
await sleep(2_000);
const loadAtStart = loadAverage();
gcObserver.observe({ entryTypes: ['gc'] });
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
let last = performance.now();
let lastSched = schedMs();
const ticker = setInterval(() => {
  const now = performance.now();
  const sched = schedMs();
  if (now - last > gapMs) gaps.push({ at: last, ms: now - last, inflight, cpu: sched.cpu - lastSched.cpu, waiting: sched.waiting - lastSched.waiting });
  last = now;
  lastSched = sched;
}, 5);
const began = performance.now();
let searches = 0;
while (performance.now() - began < Number(values.seconds) * 1000) {
  for (const query of queries) {
    if (values.mode === 'ingest') {
      await sleep(200);
      continue;
    }
    inflight = query.name;
    await timedGet(server, token, queryPath(query.params));
    inflight = '-';
    searches++;
  }
}
clearInterval(ticker);
delay.disable();
gcObserver.disconnect();
const seconds = (performance.now() - began) / 1000;
const [rate, machineStall] = await Promise.all([loaded?.stop() ?? 0, noise.stop()]);
await app.close();
await container.close();

const overlapping = (gap: Span) => gcs.filter((gc) => gc.at < gap.at + gap.ms && gc.at + gc.ms > gap.at);
const gcSummary = Object.fromEntries(Object.values(GC_KINDS).map((kind) => {
  const ofKind = gcs.filter((gc) => gc.kind === kind);
  return [kind, { count: ofKind.length, total_ms: round1(ofKind.reduce((sum, gc) => sum + gc.ms, 0)), max_ms: round1(Math.max(0, ...ofKind.map((gc) => gc.ms))) }];
}));
console.log(JSON.stringify({
  mode: values.mode, seconds: round1(seconds), events_per_s: Math.round(rate), searches,
  max_stall_ms: round1(delay.max / 1e6), p99_delay_ms: round1(delay.percentile(99) / 1e6), gaps_over_threshold: gaps.length,
  idle_process_max_stall_ms: round1(machineStall),
  gc: gcSummary,
  longest_gaps: gaps.sort((a, b) => b.ms - a.ms).slice(0, 12).map((gap) => ({
    ms: round1(gap.ms), cpu_ms: round1(gap.cpu), waiting_for_cpu_ms: round1(gap.waiting), inflight: gap.inflight, gc: overlapping(gap).map((gc) => `${gc.kind} ${round1(gc.ms)}`).join(', '),
  })),
  load_average: [loadAtStart, loadAverage()], date: new Date().toISOString(),
}));
