/**
 * bench/ingest: end-to-end events/s from `vigil simulate` over HTTPS into `vigil serve` on the
 * embedded store (every search index maintained), with the server's peak RSS sampled each second.
 *
 *   npm run build && node --import tsx bench/ingest/run.ts [--sensors 32] [--duration 300] [--batch-size 2000] [--no-gzip]
 *     [--server-flags="--max-semi-space-size=64"]
 *
 * Prints one JSON line: events/s, p50/p99 batch acknowledgement latency, the slowest minute's
 * events/s as the server counted them (`GET /api/v1/ingest/stats` every 10 s), peak server RSS, and
 * the CPU time server and simulator spent per event, the server's also for its main (request) thread
 * alone (HTTP, TLS, decoding and preparation) and for the event writer's thread. `--server-flags` are
 * Node options for the server process, to measure V8 settings end to end.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { get } from 'node:https';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/vigil.js', import.meta.url));
const { values } = parseArgs({
  options: {
    sensors: { type: 'string', default: '32' },
    duration: { type: 'string', default: '300' },
    'batch-size': { type: 'string', default: '2000' },
    seed: { type: 'string', default: '1' },
    'no-gzip': { type: 'boolean', default: false },
    'server-flags': { type: 'string', default: '' },
  },
});

/** CPU seconds (user + system) a process (or, with `thread`, one of its threads) has used so far, from /proc. */
function cpuSeconds(pid: number, thread?: number): number {
  const stat = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
  const fields = readFileSync(stat, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds of each of a process's threads so far. */
function threadCpu(pid: number): Map<number, number> {
  return new Map(readdirSync(`/proc/${pid}/task`).map((thread) => [Number(thread), cpuSeconds(pid, Number(thread))]));
}

/** Events the server has accepted so far, from its ingest counters. */
function eventsAccepted(url: string, token: string, ca: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    get(`${url}/api/v1/ingest/stats`, { ca, headers: { 'X-Auth-Token': token } }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve((JSON.parse(body) as { events_accepted?: number }).events_accepted ?? 0));
    }).on('error', reject);
  });
}

/** The lowest events/s over any 60 s between samples taken every 10 s: how well the rate was sustained. */
function slowestMinute(samples: readonly { ms: number; events: number }[]): number | undefined {
  let slowest: number | undefined;
  for (let i = 0; i + 6 < samples.length; i++) {
    const [from, to] = [samples[i]!, samples[i + 6]!];
    const rate = ((to.events - from.events) * 1000) / (to.ms - from.ms);
    slowest = Math.min(slowest ?? rate, rate);
  }
  return slowest === undefined ? undefined : Math.round(slowest);
}

function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-ingest-'));
const serverFlags = values['server-flags']!.split(' ').filter((flag) => flag !== '');
const server = spawn(process.execPath, [...serverFlags, BIN, 'serve', '--data-dir', dataDir, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
try {
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    server.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"url":"(https:\/\/[^"]+)".*Vigil is listening/.exec(output);
      if (match) resolve(match[1]!);
    });
    server.on('exit', (code) => reject(new Error(`server exited ${code}: ${output}`)));
  });
  const token = spawnSync(process.execPath, [BIN, 'token', 'admin', '--data-dir', dataDir], { encoding: 'utf8' }).stdout.trim();

  const serverCpuBefore = cpuSeconds(server.pid!);
  const threadCpuBefore = threadCpu(server.pid!);
  // The main thread's id is the process's: HTTP, TLS, decoding and preparation run there.
  const requestThreadCpuBefore = cpuSeconds(server.pid!, server.pid!);
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssBytes(server.pid!))), 1000);
  // Spawned asynchronously, so the RSS sampler keeps running while the simulator works.
  const simulator = spawn(process.execPath, [
    BIN, 'simulate', '--server', url, '--token', token, '--sensors', values.sensors!, '--duration', values.duration!,
    '--batch-size', values['batch-size']!, '--seed', values.seed!, '--json', ...(values['no-gzip'] ? ['--no-gzip'] : []),
  ], { stdio: ['ignore', 'pipe', 'inherit'] });
  let report = '';
  let simulatorCpu = 0;
  const simulatorSampler = setInterval(() => (simulatorCpu = cpuSeconds(simulator.pid!)), 200);
  const ca = readFileSync(join(dataDir, 'tls', 'cert.pem'));
  const accepted: { ms: number; events: number }[] = [];
  const counting = setInterval(() => {
    const ms = Date.now();
    void eventsAccepted(url, token, ca).then((events) => accepted.push({ ms, events }));
  }, 10_000);
  simulator.stdout.on('data', (chunk: Buffer) => (report += chunk.toString()));
  const status = await new Promise<number | null>((resolve) => simulator.on('exit', resolve));
  clearInterval(sampler);
  clearInterval(simulatorSampler);
  clearInterval(counting);
  const serverCpu = cpuSeconds(server.pid!) - serverCpuBefore;
  const requestThreadCpu = cpuSeconds(server.pid!, server.pid!) - requestThreadCpuBefore;
  // Node 20 cannot name its threads: the event writer is the busiest one besides the main thread.
  const threadCpuAfter = threadCpu(server.pid!);
  const writerThreadCpu = Math.max(0, ...[...threadCpuAfter]
    .filter(([thread]) => thread !== server.pid)
    .map(([thread, seconds]) => seconds - (threadCpuBefore.get(thread) ?? 0)));
  if (status !== 0) throw new Error(`simulator exited with ${status}`);
  const summary = JSON.parse(report.trim().split('\n').at(-1)!);
  // CPU per event shows where the two shared cores go, whatever else the machine was doing.
  const perEvent = (seconds: number) => Math.round((seconds / summary.events_acknowledged) * 1e7) / 10;
  console.log(JSON.stringify({
    ...summary,
    slowest_minute_events_per_s: slowestMinute(accepted),
    server_peak_rss_mb: Math.round(peakRss / 1024 / 1024),
    server_cpu_us_per_event: perEvent(serverCpu),
    server_request_thread_cpu_us_per_event: perEvent(requestThreadCpu),
    server_writer_thread_cpu_us_per_event: perEvent(writerThreadCpu),
    simulator_cpu_us_per_event: perEvent(simulatorCpu),
  }));
} finally {
  server.kill('SIGTERM');
  await new Promise((resolve) => server.on('exit', resolve));
  rmSync(dataDir, { recursive: true, force: true });
}
