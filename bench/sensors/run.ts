/**
 * bench/sensors: the check-in load of the endpoints one server carries (issue 22 point 5). 10,000
 * simulated sensors check in every 30 s; 1,000 of them also upload events. Two simulator
 * processes: one runs the 9,000 idle sensors (`--idle-sensors`) for the whole run, the other
 * the 1,000 uploading ones, started after an idle-only phase.
 *
 *   npm run build && node --import tsx bench/sensors/run.ts [--idle-seconds 90] [--load-seconds 180]
 *     [--rate 20000] [--batch-size 100] [--server-flags="--cpu-prof --cpu-prof-dir=DIR"]
 *
 * Reports the server's CPU per check-in over the idle phase (the CPU the server used over the
 * check-ins answered meanwhile, as the idle simulator counts them), the check-in p99 of each
 * minute, and during the load phase the latency of the sensor list (all 10,000) and of a search
 * made every 5 s. Beside each simulator's figures, its own event-loop delay per minute and its
 * share of a core: a generator whose loop lags times its own queue, not the server.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { api } from '../support/api.js';
import { calibrationLine, cpuSnapshot, stealSince } from '../support/calibration.js';
import { cpuSeconds, listenOverflows, loadAverage, rssBytes } from '../support/proc.js';
import { BIN, startVigilServer, type VigilServer } from '../support/vigil-server.js';

const { values } = parseArgs({
  options: {
    'idle-seconds': { type: 'string', default: '90' },
    'load-seconds': { type: 'string', default: '180' },
    rate: { type: 'string', default: '20000' },
    'batch-size': { type: 'string', default: '100' },
    idle: { type: 'string', default: '9000' },
    uploading: { type: 'string', default: '1000' },
    // e.g. --server-flags="--cpu-prof --cpu-prof-dir=/tmp/prof": Node flags for the server process, to profile it under this load.
    'server-flags': { type: 'string', default: '' },
  },
});
const idleS = Number(values['idle-seconds']);
const loadS = Number(values['load-seconds']);

interface Progress { at_ms: number; checkins: number }
interface Summary {
  ok: boolean; errors: string[]; sensors: number; idle_sensors: number; events_per_s: number; events_acknowledged: number;
  checkins: number; checkin_latency_p50_ms: number; checkin_latency_p99_ms: number; checkin_latency_p99_ms_by_minute: number[];
  ack_latency_p99_ms: number; elapsed_s: number; cpu_s: number; event_loop_delay_ms: { p99: number; max: number; p99_by_minute: number[] };
}

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-sensors-'));
console.log(await calibrationLine(dataDir));
// 10,000 real sensors come from 10,000 addresses; these all come from one, past the default limit of
// connections per address (512), which would close the newest under load.
process.env.VIGIL_MAX_CONNECTIONS_PER_ADDRESS = '16384';
const server = await startVigilServer({ dataDir, nodeFlags: values['server-flags']!.split(' ').filter(Boolean) });
try {
  console.log(JSON.stringify(await run(server)));
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

async function run(server: VigilServer): Promise<Record<string, unknown>> {
  const loadBefore = loadAverage();
  const overflowsBefore = listenOverflows();
  const cpuBefore = cpuSnapshot();
  const idle = simulator(server, ['--sensors', '0', '--idle-sensors', values.idle!, '--duration', String(idleS + loadS + 30), '--seed', 'idle']);
  const registered = await idle.firstProgress;
  const idleFrom = { cpu: cpuSeconds(server.pid), checkins: idle.latest().checkins, at: Date.now() };
  await new Promise((resolve) => setTimeout(resolve, idleS * 1000));
  const idleTo = { cpu: cpuSeconds(server.pid), checkins: idle.latest().checkins, at: Date.now() };
  const idleCheckins = idleTo.checkins - idleFrom.checkins;
  const idlePhase = {
    seconds: Math.round((idleTo.at - idleFrom.at) / 1000), checkins: idleCheckins,
    checkins_per_s: Math.round((idleCheckins * 1000) / (idleTo.at - idleFrom.at)),
    server_cpu_us_per_checkin: Math.round(((idleTo.cpu - idleFrom.cpu) / idleCheckins) * 1e6),
  };
  // Printed now too: a load phase that overwhelms the machine should not lose it.
  process.stderr.write(`idle phase ${JSON.stringify(idlePhase)}\n`);

  const uploading = simulator(server, [
    '--sensors', values.uploading!, '--duration', String(loadS), '--rate', values.rate!, '--batch-size', values['batch-size']!, '--seed', 'uploading',
  ]);
  const probes = { sensorList: [] as number[], search: [] as number[], errors: [] as string[] };
  let peakRss = 0;
  const probing = setInterval(() => {
    peakRss = Math.max(peakRss, rssBytes(server.pid));
    void api<unknown[]>(server, 'GET', '/api/v1/sensor').then((reply) => {
      if (reply.status === 200) probes.sensorList.push(reply.ms);
      else probes.errors.push(`sensor list: ${reply.status}`);
    }, (error: Error) => probes.errors.push(`sensor list: ${error.message}`));
    void api(server, 'GET', '/api/v1/process?cb.urlver=1&q=process_name%3Asvchost.exe&rows=10').then((reply) => {
      if (reply.status === 200) probes.search.push(reply.ms);
      else probes.errors.push(`search: ${reply.status}`);
    }, (error: Error) => probes.errors.push(`search: ${error.message}`));
  }, 5000);
  const [idleSummary, uploadingSummary] = await Promise.all([idle.summary, uploading.summary]);
  clearInterval(probing);
  return {
    sensors: idleSummary.idle_sensors + uploadingSummary.sensors, registration_s: Math.round((registered.at_ms - idle.startedMs) / 1000),
    idle_phase: idlePhase,
    idle_simulator: pick(idleSummary),
    uploading_simulator: { ...pick(uploadingSummary), events_per_s: uploadingSummary.events_per_s, ack_latency_p99_ms: uploadingSummary.ack_latency_p99_ms },
    during_load: { sensor_list_ms: stats(probes.sensorList), search_ms: stats(probes.search), errors: probes.errors.slice(0, 5) },
    server_peak_rss_mb: Math.round(peakRss / 2 ** 20),
    // Machine-wide, so another program's full queue counts too; on a quiet machine it is the server's.
    listen_overflows: listenOverflows() - overflowsBefore, load_average: [loadBefore, loadAverage()], steal_share: stealSince(cpuBefore),
    ok: idleSummary.ok && uploadingSummary.ok && probes.errors.length === 0,
  };
}

function pick(s: Summary) {
  return {
    checkins: s.checkins, checkin_p50_ms: s.checkin_latency_p50_ms, checkin_p99_ms: s.checkin_latency_p99_ms,
    checkin_p99_ms_by_minute: s.checkin_latency_p99_ms_by_minute, errors: s.errors.slice(0, 3),
    // The generator's own lag and CPU beside its latencies: a check-in it timed late may have waited in its own loop.
    loop_delay_p99_ms_by_minute: s.event_loop_delay_ms.p99_by_minute, loop_delay_max_ms: s.event_loop_delay_ms.max,
    cpu_share: Math.round((s.cpu_s / s.elapsed_s) * 100) / 100,
  };
}

/** A `vigil simulate` child with its progress lines followed (they start once its sensors are registered). */
function simulator(server: VigilServer, args: string[]) {
  const child = spawn(process.execPath, [
    BIN, 'simulate', '--server', server.url, '--token', server.token, '--checkin-interval', '30', '--json', '--progress-json', ...args,
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  const startedMs = Date.now();
  let last: Progress = { at_ms: startedMs, checkins: 0 };
  let report = '';
  let errors = '';
  let first: (p: Progress) => void;
  const firstProgress = new Promise<Progress>((resolve) => (first = resolve));
  let partial = '';
  child.stderr.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      if (!line.startsWith('{')) {
        errors += line;
        continue;
      }
      last = JSON.parse(line) as Progress;
      first(last);
    }
  });
  child.stdout.on('data', (chunk: Buffer) => (report += chunk.toString()));
  const summary = new Promise<Summary>((resolve, reject) => child.on('exit', (code) => {
    if (report.trim() === '') reject(new Error(`simulator exited with ${code}: ${errors.slice(0, 500)}`));
    else resolve(JSON.parse(report.trim().split('\n').at(-1)!) as Summary);
  }));
  return { firstProgress, summary, startedMs, latest: () => last };
}

function stats(values: number[]): { n: number; p50: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { n: sorted.length, p50: Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0), max: Math.round(sorted.at(-1) ?? 0) };
}
