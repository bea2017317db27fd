/**
 * One measured bench/ingest run: `vigil simulate` over HTTPS into one or more `vigil serve`, on the
 * embedded store or on PostgreSQL (an embedded PostgreSQL of the run's own with its durable
 * defaults, or an existing server's URL), with the CPU every process spent per event: each server
 * (its request thread and, on the embedded store, its event writer's), PostgreSQL's processes and
 * the simulators.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBenchPostgres, type BenchPostgres } from '../pg-ingest/server.js';
import { resetStatements, STATEMENT_SETTINGS, statementTimes, walFigures } from './statements.js';
import { cpuSnapshot, stealSince } from '../support/calibration.js';
import { cpuSeconds, loadAverage, rssBytes, threadCpu } from '../support/proc.js';
import { BIN, startVigilServer, type VigilServer } from '../support/vigil-server.js';

export interface IngestRunOptions {
  store: 'embedded' | 'postgres';
  /** An existing (empty) PostgreSQL database; without it the run starts its own. */
  databaseUrl?: string;
  /** `vigil serve` processes on the one database, the sensors split between them. */
  servers: number;
  sensors: number;
  durationS: number;
  batchSize: number;
  seed: string;
  gzip: boolean;
  serverFlags: string[];
  /** Print PostgreSQL's execution time per statement and its WAL figures (bench/ingest/statements.ts). */
  pgStatements?: boolean;
  /** Settings of the embedded PostgreSQL the run starts. */
  pgSettings?: Record<string, string>;
}

interface SimulatorSummary {
  events_acknowledged: number;
  events_accepted: number;
  rejected: number;
  retries: number;
  elapsed_s: number;
  events_per_s: number;
  ack_latency_p50_ms: number;
  ack_latency_p99_ms: number;
  ok: boolean;
  errors: string[];
}

export async function runIngest(options: IngestRunOptions): Promise<Record<string, unknown>> {
  const dataDirs: string[] = [];
  const servers: VigilServer[] = [];
  const postgres = options.store === 'postgres' && !options.databaseUrl
    ? await startBenchPostgres(undefined, { ...options.pgSettings, ...(options.pgStatements ? STATEMENT_SETTINGS : {}) }) : undefined;
  const databaseUrl = options.store === 'postgres' ? options.databaseUrl ?? postgres!.url : undefined;
  if (databaseUrl && options.pgStatements) await resetStatements(databaseUrl);
  try {
    for (let i = 0; i < (options.store === 'postgres' ? options.servers : 1); i++) {
      dataDirs.push(mkdtempSync(join(tmpdir(), 'vigil-bench-ingest-')));
      // One at a time: the first migrates the database and makes the secret key the others share.
      servers.push(await startVigilServer({
        dataDir: dataDirs[i]!, databaseUrl, nodeFlags: options.serverFlags,
        secretKeyFile: i === 0 ? undefined : join(dataDirs[0]!, 'secrets.key'),
      }));
    }
    const result = await measure(options, servers, postgres);
    if (!databaseUrl || !options.pgStatements) return result;
    const events = result.events_acknowledged as number;
    return { ...result, wal: await walFigures(databaseUrl, events), statements: await statementTimes(databaseUrl, events) };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await postgres?.stop();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  }
}

async function measure(options: IngestRunOptions, servers: VigilServer[], postgres: BenchPostgres | undefined): Promise<Record<string, unknown>> {
  const loadBefore = loadAverage();
  const cpuBefore = cpuSnapshot();
  const threadsBefore = servers.map((server) => threadCpu(server.pid));
  const postgresBefore = postgres?.cpuSeconds() ?? 0;
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, ...servers.map((server) => rssBytes(server.pid)))), 1000);
  // The ingest counters live in the database, so one server counts what every server accepted.
  const accepted: { ms: number; events: number }[] = [];
  const counting = setInterval(() => {
    const ms = Date.now();
    void eventsAccepted(servers[0]!).then((events) => accepted.push({ ms, events }));
  }, 10_000);
  const simulators = servers.map((server, i) => simulate(options, server, i, servers.length));
  const results = await Promise.all(simulators);
  clearInterval(sampler);
  clearInterval(counting);
  const postgresCpu = postgres ? postgres.cpuSeconds() - postgresBefore : undefined;
  const threads = servers.map((server, i) => threadSplit(server.pid, threadsBefore[i]!));
  const summaries = results.map((result) => result.summary);
  const failed = summaries.find((summary) => !summary.ok);
  if (failed) throw new Error(`a simulator did not finish cleanly: ${failed.errors.slice(0, 3).join('; ')}`);

  const acknowledged = sum(summaries.map((s) => s.events_acknowledged));
  // CPU per event shows where the two shared cores go, whatever else the machine was doing.
  const perEvent = (seconds: number) => Math.round((seconds / acknowledged) * 1e7) / 10;
  const serverCpu = sum(threads.map((t) => t.total));
  const simulatorCpu = sum(results.map((result) => result.cpu));
  return {
    store: options.store, servers: servers.length, sensors: options.sensors, duration_s: options.durationS,
    events_acknowledged: acknowledged, events_accepted: sum(summaries.map((s) => s.events_accepted)),
    rejected: sum(summaries.map((s) => s.rejected)), retries: sum(summaries.map((s) => s.retries)),
    events_per_s: sum(summaries.map((s) => s.events_per_s)),
    // Each simulator reports its own percentiles; with several, the worst of them.
    ack_latency_p50_ms: Math.max(...summaries.map((s) => s.ack_latency_p50_ms)),
    ack_latency_p99_ms: Math.max(...summaries.map((s) => s.ack_latency_p99_ms)),
    slowest_minute_events_per_s: slowestMinute(accepted),
    server_peak_rss_mb: Math.round(peakRss / 1024 / 1024),
    server_cpu_us_per_event: perEvent(serverCpu),
    server_request_thread_cpu_us_per_event: perEvent(sum(threads.map((t) => t.main))),
    // Node 20 cannot name its threads: the event writer (either store's) is the busiest one besides the main thread.
    server_writer_thread_cpu_us_per_event: perEvent(sum(threads.map((t) => t.busiestOther))),
    ...(postgresCpu === undefined ? {} : { postgres_cpu_us_per_event: perEvent(postgresCpu) }),
    simulator_cpu_us_per_event: perEvent(simulatorCpu),
    total_cpu_us_per_event: perEvent(serverCpu + simulatorCpu + (postgresCpu ?? 0)),
    load_average: [loadBefore, loadAverage()],
    // A VM's cores lose time to the hypervisor: what is lost here shows as CPU per event elsewhere.
    steal_share: stealSince(cpuBefore),
  };
}

/** One simulator process against one server, with its share of the sensors and a seed of its own. */
async function simulate(options: IngestRunOptions, server: VigilServer, index: number, count: number): Promise<{ summary: SimulatorSummary; cpu: number }> {
  const sensors = Math.floor(options.sensors / count) + (index < options.sensors % count ? 1 : 0);
  const seed = index === 0 ? options.seed : `${options.seed}-${index}`;
  const child = spawn(process.execPath, [
    BIN, 'simulate', '--server', server.url, '--token', server.token, '--sensors', String(sensors),
    '--duration', String(options.durationS), '--batch-size', String(options.batchSize), '--seed', seed, '--json',
    ...(options.gzip ? [] : ['--no-gzip']),
  ], { stdio: ['ignore', 'pipe', 'inherit'] });
  let report = '';
  let cpu = 0;
  // Read while it lives: /proc forgets an exited child.
  const sampler = setInterval(() => (cpu = cpuSeconds(child.pid!)), 200);
  child.stdout.on('data', (chunk: Buffer) => (report += chunk.toString()));
  const status = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearInterval(sampler);
  if (status !== 0 && report.trim() === '') throw new Error(`simulator exited with ${status}`);
  return { summary: JSON.parse(report.trim().split('\n').at(-1)!) as SimulatorSummary, cpu };
}

/** A server's CPU seconds since `before`: all threads, the main (request) thread, the busiest other. */
function threadSplit(pid: number, before: Map<number, number>): { total: number; main: number; busiestOther: number } {
  const used = [...threadCpu(pid)].map(([thread, seconds]) => [thread, seconds - (before.get(thread) ?? 0)] as const);
  // The main thread's id is the process's: HTTP, TLS, decoding and preparation run there.
  const main = used.find(([thread]) => thread === pid)?.[1] ?? 0;
  return { total: sum(used.map(([, s]) => s)), main, busiestOther: Math.max(0, ...used.filter(([t]) => t !== pid).map(([, s]) => s)) };
}

/** Events the servers have accepted so far, from the ingest counters. */
function eventsAccepted(server: VigilServer): Promise<number> {
  return new Promise((resolve, reject) => {
    get(`${server.url}/api/v1/ingest/stats`, { ca: server.ca, headers: { 'X-Auth-Token': server.token } }, (response) => {
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

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
