/**
 * `vigil simulate`: a fleet of simulated endpoints against a real server. Every sensor registers
 * with the group's install code, checks in on its own timer (acknowledging instructions and
 * honouring isolation), uploads the binaries its events reference, and streams its events in
 * numbered batches, one in flight at a time, within its site's throttle rules, until its process
 * budget or the duration is spent. Idle sensors (`idleSensors`) only register and check in, their
 * first check-ins spread over one interval: thousands of them cost one process little.
 * The run ends when every batch sent has been answered.
 */
import type { Agent } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SensorEvent } from '../ingest/event.schemas.js';
import { BinaryCatalog, type Binary } from './binaries.js';
import { Checkins } from './checkins.js';
import { SensorClient, createAgent, fetchInstallCode } from './client.js';
import { startIdleFleet } from './idle-fleet.js';
import { Endpoint } from './endpoint.js';
import { Pacer, untilStopped } from './pacing.js';
import { LatencyByMinute, LoopDelayByMinute, percentile, tallyTypes } from './simulation-stats.js';

export interface SimulationOptions {
  server: string;
  /** An API token of an administrator of the group, to read its install code; not needed with installCode. */
  token?: string | undefined;
  /** The group's install code, as an installer package holds it; read with `token` when absent. */
  installCode?: string | undefined;
  sensors: number;
  /** Further sensors that register and check in but send no events; they stop with the run. */
  idleSensors?: number | undefined;
  /** Processes each sensor starts (boot tree included) before it stops. */
  processes?: number | undefined;
  /** Seconds of streaming after which sensors stop. With neither limit, only `signal` stops the run. */
  durationS?: number | undefined;
  seed: string;
  /** Events per second across all sensors; unlimited when absent. */
  rate?: number | undefined;
  groupId?: number | undefined;
  batchSize?: number | undefined;
  checkinIntervalS?: number | undefined;
  rejectUnauthorized?: boolean | undefined;
  ca?: string | undefined;
  gzip?: boolean | undefined;
  /** Called about twice a second while events stream. */
  onProgress?: ((progress: SimulationProgress) => void) | undefined;
  /** Aborting stops generation; batches in flight are still seen through. */
  signal?: AbortSignal | undefined;
}

export interface SimulationProgress {
  elapsed_s: number;
  sensors_online: number;
  events_sent: number;
  events_acknowledged: number;
  events_per_s: number;
  /** Check-ins answered so far, across the whole fleet. */
  checkins: number;
}

export interface SimulationSummary {
  seed: string;
  sensors: number;
  idle_sensors: number;
  events_sent: number;
  /** Events in batches the server answered (including batches it answered as duplicates). */
  events_acknowledged: number;
  /** Acknowledged events by type (process_start, modload, …), to count them back through search. */
  events_acknowledged_by_type: Record<string, number>;
  events_accepted: number;
  events_filtered: number;
  rejected: number;
  batches: number;
  /** Batches answered `duplicate: true`: retries of a batch whose first answer was lost. */
  duplicates: number;
  /** Requests sent again after a network error or a 5xx. */
  retries: number;
  /** Check-ins lost to network errors or 5xx (a 503 is sent again after its Retry-After); refused ones are errors. */
  checkin_failures: number;
  binaries: number;
  /** From the end of registration to the last acknowledgement. */
  elapsed_s: number;
  events_per_s: number;
  ack_latency_p50_ms: number;
  ack_latency_p99_ms: number;
  /** The p99 of each minute from the start of streaming. */
  ack_latency_p99_ms_by_minute: number[];
  /** Check-ins answered, and how long they took. */
  checkins: number;
  checkin_latency_p50_ms: number;
  checkin_latency_p99_ms: number;
  /** The p99 of each minute from the start of streaming (check-ins before it count in the first). */
  checkin_latency_p99_ms_by_minute: number[];
  /**
   * How late this process's own event loop ran (ms) from the end of registration, over the run and
   * in each minute: a loop that lags delays the replies it times by as much, so a latency not far
   * above it says nothing of the server.
   */
  event_loop_delay_ms: { p99: number; max: number; p99_by_minute: number[] };
  /** CPU seconds this process used from the end of registration: the load generator's share of the machine. */
  cpu_s: number;
  /** What went wrong, the first few of each run; a run with errors is not ok. */
  errors: string[];
  /** Every event sent was acknowledged and accepted or filtered, and nothing failed. */
  ok: boolean;
}

const BINARY_UPLOADS_IN_PARALLEL = 4;
const ERRORS_KEPT = 50;

interface Totals {
  sent: number;
  acknowledged: number;
  accepted: number;
  filtered: number;
  rejected: number;
  batches: number;
  duplicates: number;
  binaries: number;
  byType: Record<string, number>;
  latencies: LatencyByMinute;
  errors: string[];
  errorCount: number;
}

function noteError(totals: Totals, message: string): void {
  totals.errorCount++;
  if (totals.errors.length < ERRORS_KEPT) totals.errors.push(message);
}

export async function simulate(options: SimulationOptions): Promise<SimulationSummary> {
  const batchCap = options.batchSize ?? 2000;
  // Under a rate limit, batches shrink so that each sensor still sends about one a second.
  const batchSize = options.rate ? Math.max(1, Math.min(batchCap, Math.ceil(options.rate / options.sensors))) : batchCap;
  // Each sensor keeps a connection for registration and check-ins, and at most as many for its
  // uploads as it sends at once. An agent per sensor without a cap opened a connection per request
  // in flight, check-ins included: under upload load a check-in that found its sensor's sockets
  // busy waited in the server's accept queue among thousands of new connections, up to 121 s in
  // bench/sensors (issue 22 point 5).
  const agents: Agent[] = [];
  const connection = () => {
    const [agent, checkinAgent] = [createAgent(options.server, options, BINARY_UPLOADS_IN_PARALLEL), createAgent(options.server, options, 1)];
    agents.push(agent, checkinAgent);
    return { server: options.server, agent, checkinAgent, gzip: options.gzip };
  };
  let started = performance.now();
  const latencies = new LatencyByMinute(() => started);
  const totals: Totals = { sent: 0, acknowledged: 0, accepted: 0, filtered: 0, rejected: 0, batches: 0, duplicates: 0, binaries: 0, byType: {}, latencies, errors: [], errorCount: 0 };
  const clients: SensorClient[] = [];
  const checkins: Checkins[] = [];
  const loopDelay = new LoopDelayByMinute();
  let cpuFrom = process.cpuUsage();
  try {
    const installCode = options.installCode ?? await fetchInstallCode(connection(), requireToken(options.token), options.groupId ?? 1);
    const binaries = new BinaryCatalog(options.seed);
    const startMs = Date.now();
    const intervalMs = (options.checkinIntervalS ?? 5) * 1000;
    const onRefused = (endpoint: Endpoint) => (error: Error) => noteError(totals, `${endpoint.hostname}: check-in: ${error.message}`);
    const endpoints = Array.from({ length: options.sensors }, (_, index) =>
      new Endpoint({ seed: options.seed, index, startMs, processes: options.processes, binaries }));
    for (const endpoint of endpoints) {
      const client = new SensorClient(connection());
      await client.register(installCode, endpoint.facts);
      clients.push(client);
      checkins.push(new Checkins(client, endpoint, intervalMs, onRefused(endpoint)));
    }
    checkins.push(...await startIdleFleet({
      count: options.idleSensors ?? 0, firstIndex: options.sensors, seed: options.seed, startMs, binaries, connection, installCode, intervalMs, onRefused,
    }));
    started = performance.now();
    cpuFrom = process.cpuUsage();
    loopDelay.start();
    const deadline = options.durationS === undefined ? Infinity : started + options.durationS * 1000;
    const stopping = () => options.signal?.aborted === true || performance.now() >= deadline;
    const pacer = options.rate ? new Pacer(options.rate) : undefined;
    const progress = options.onProgress && setInterval(() => options.onProgress!(progressOf(totals, checkins, started)), 500);
    try {
      await Promise.all(endpoints.map((endpoint, i) => stream(endpoint, clients[i]!, { batchSize, stopping, pacer, totals })));
      if (endpoints.length === 0) await untilStopped(deadline, options.signal);
    } finally {
      clearInterval(progress);
    }
    const elapsed = (performance.now() - started) / 1000;
    await Promise.all(checkins.map((c) => c.stop()));
    loopDelay.stop();
    return summarize(options, totals, clients, checkins, elapsed, started, { loopDelay, cpu: process.cpuUsage(cpuFrom) });
  } finally {
    loopDelay.stop();
    await Promise.all(checkins.map((c) => c.stop()));
    for (const agent of agents) agent.destroy();
  }
}

interface StreamContext {
  batchSize: number;
  stopping: () => boolean;
  pacer: Pacer | undefined;
  totals: Totals;
}

/** One sensor's event stream; the next batch is generated before the previous one's answer is awaited. */
async function stream(endpoint: Endpoint, client: SensorClient, { batchSize, stopping, pacer, totals }: StreamContext): Promise<void> {
  const next = (): { events: SensorEvent[]; binaries: Binary[] } | undefined => {
    if (stopping()) return undefined;
    endpoint.syncClock(Date.now());
    const events = endpoint.take(batchSize);
    return events.length ? { events, binaries: endpoint.takeBinaries() } : undefined;
  };
  let sequence = 0;
  let batch = next();
  while (batch) {
    await throttled(endpoint, batch);
    if (!(await uploadBinaries(endpoint, client, batch.binaries, totals, stopping))) return;
    // A batch made before the end whose binaries took past it is not sent: a run ends at its duration.
    if (stopping()) return;
    await pacer?.take(batch.events.length);
    const { events } = batch;
    const seq = ++sequence;
    totals.sent += events.length;
    totals.batches++;
    const sentAt = performance.now();
    const acknowledged = client.uploadEvents(seq, events).then(
      (reply) => {
        const now = performance.now();
        totals.latencies.add(now - sentAt, now);
        totals.acknowledged += events.length;
        tallyTypes(totals.byType, events);
        totals.accepted += reply.accepted;
        totals.filtered += reply.filtered;
        totals.rejected += reply.rejected.length;
        if (reply.duplicate) totals.duplicates++;
        for (const rejection of reply.rejected.slice(0, 3)) {
          noteError(totals, `${endpoint.hostname}: batch ${seq} event ${rejection.index} rejected: ${rejection.reason} ${rejection.detail}`);
        }
        return true;
      },
      (error: Error) => {
        noteError(totals, `${endpoint.hostname}: batch ${seq}: ${error.message}`);
        return false;
      },
    );
    batch = next();
    if (!(await acknowledged)) return;
  }
}

/** Waits as its site's throttle rules ask before a batch and its binaries go (upload-throttle.ts). */
async function throttled(endpoint: Endpoint, batch: { events: SensorEvent[]; binaries: Binary[] }): Promise<void> {
  const limit = endpoint.throttle.limitAt(endpoint.sensorTime(Date.now()));
  // Sizing a batch costs a serialization: only done while a limit is in force.
  const bytes = limit === undefined
    ? 0
    : Buffer.byteLength(JSON.stringify(batch.events)) + batch.binaries.reduce((sum, binary) => sum + binary.content.length, 0);
  const wait = endpoint.throttle.delayFor(bytes, limit, performance.now());
  if (wait > 0) await sleep(wait);
}

/**
 * Uploads a batch's binaries; false once one failed or the run is stopping. None starts, and none
 * is retried, after the run's end: a fleet's first batches reference hundreds of binaries each, and
 * uploads going on past --duration were a load the benchmark took for the run's (issue 22 point 5).
 */
async function uploadBinaries(endpoint: Endpoint, client: SensorClient, binaries: Binary[], totals: Totals, stopping: () => boolean): Promise<boolean> {
  for (let i = 0; i < binaries.length; i += BINARY_UPLOADS_IN_PARALLEL) {
    if (stopping()) return false;
    try {
      await Promise.all(binaries.slice(i, i + BINARY_UPLOADS_IN_PARALLEL).map((b) => client.uploadBinary(b.metadata, b.content, stopping)));
    } catch (error) {
      // One given up because the run ended did not fail.
      if (!stopping()) noteError(totals, `${endpoint.hostname}: binary upload: ${(error as Error).message}`);
      return false;
    }
    totals.binaries += Math.min(BINARY_UPLOADS_IN_PARALLEL, binaries.length - i);
  }
  return true;
}

function progressOf(totals: Totals, checkins: Checkins[], started: number): SimulationProgress {
  const elapsed = (performance.now() - started) / 1000;
  return {
    elapsed_s: round(elapsed),
    sensors_online: checkins.filter((c) => c.online).length,
    events_sent: totals.sent,
    events_acknowledged: totals.acknowledged,
    events_per_s: elapsed > 0 ? Math.round(totals.acknowledged / elapsed) : 0,
    checkins: checkins.reduce((sum, c) => sum + c.latencies.length, 0),
  };
}

function summarize(
  options: SimulationOptions, totals: Totals, clients: SensorClient[], checkins: Checkins[], elapsed: number, started: number,
  own: { loopDelay: LoopDelayByMinute; cpu: NodeJS.CpuUsage },
): SimulationSummary {
  const checkinLatencies = checkins.flatMap((c) => c.latencies);
  const checkinsByMinute = new LatencyByMinute(() => started);
  for (const c of checkins) c.latencies.forEach((ms, i) => checkinsByMinute.add(ms, c.answeredAt[i]!));
  return {
    seed: options.seed,
    sensors: clients.length,
    idle_sensors: checkins.length - clients.length,
    events_sent: totals.sent,
    events_acknowledged: totals.acknowledged,
    events_acknowledged_by_type: totals.byType,
    events_accepted: totals.accepted,
    events_filtered: totals.filtered,
    rejected: totals.rejected,
    batches: totals.batches,
    duplicates: totals.duplicates,
    retries: clients.reduce((sum, client) => sum + client.retries, 0),
    checkin_failures: checkins.reduce((sum, c) => sum + c.failures, 0),
    binaries: totals.binaries,
    elapsed_s: round(elapsed),
    events_per_s: elapsed > 0 ? Math.round(totals.acknowledged / elapsed) : 0,
    ack_latency_p50_ms: totals.latencies.percentile(50),
    ack_latency_p99_ms: totals.latencies.percentile(99),
    ack_latency_p99_ms_by_minute: totals.latencies.p99ByMinute(),
    checkins: checkinLatencies.length,
    checkin_latency_p50_ms: percentile(checkinLatencies, 50),
    checkin_latency_p99_ms: percentile(checkinLatencies, 99),
    checkin_latency_p99_ms_by_minute: checkinsByMinute.p99ByMinute(),
    event_loop_delay_ms: own.loopDelay.summary(),
    cpu_s: round((own.cpu.user + own.cpu.system) / 1e6),
    errors: totals.errorCount > totals.errors.length ? [...totals.errors, `… and ${totals.errorCount - totals.errors.length} more`] : totals.errors,
    ok: totals.errorCount === 0 && totals.acknowledged === totals.sent && totals.rejected === 0,
  };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function requireToken(token: string | undefined): string {
  if (token === undefined) throw new Error('simulate needs an install code, or an API token to read one');
  return token;
}
