/**
 * `vigil simulate`: runs a simulated fleet against a server and prints what happened. Progress goes
 * to stderr on one updating line when stderr is a terminal; the summary goes to stdout. The exit
 * code is 1 unless every event sent was acknowledged and accepted (or filtered).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SensorRequestError } from '../sensor/client.js';
import { simulate, type SimulationProgress, type SimulationSummary } from '../sensor/simulator.js';

export interface SimulateCommandOptions {
  server: string;
  token: string;
  sensors: number;
  processes?: number;
  duration?: number;
  seed?: string;
  rate?: number;
  group: number;
  batchSize: number;
  checkinInterval: number;
  ca?: string;
  gzip: boolean;
  json?: boolean;
}

const DEFAULT_PROCESSES = 100;

export async function runSimulate(options: SimulateCommandOptions): Promise<void> {
  const progressLine = process.stderr.isTTY ? (p: SimulationProgress) => process.stderr.write(`\r\x1b[K${describeProgress(p)}`) : undefined;
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  try {
    const summary = await simulate({
      server: options.server,
      token: options.token,
      sensors: options.sensors,
      processes: options.processes ?? (options.duration === undefined ? DEFAULT_PROCESSES : undefined),
      durationS: options.duration,
      seed: options.seed ?? randomBytes(4).toString('hex'),
      rate: options.rate,
      groupId: options.group,
      batchSize: options.batchSize,
      checkinIntervalS: options.checkinInterval,
      ca: options.ca === undefined ? undefined : readFileSync(options.ca, 'utf8'),
      gzip: options.gzip,
      onProgress: progressLine,
      signal: stop.signal,
    });
    if (progressLine) process.stderr.write('\r\x1b[K');
    process.stdout.write(options.json ? JSON.stringify(summary) + '\n' : describeSummary(summary));
    if (!summary.ok) process.exitCode = 1;
  } catch (error) {
    if (!(error instanceof SensorRequestError)) throw error;
    process.stderr.write(`vigil: ${error.message}\n`);
    process.exitCode = 1;
  } finally {
    process.off('SIGINT', onSignal);
  }
}

/** The one progress line shown on a terminal; exported for its test. */
export function describeProgress(p: SimulationProgress): string {
  return `${p.elapsed_s.toFixed(1)} s · ${p.sensors_online} sensors online · ${count(p.events_acknowledged)} of ${count(p.events_sent)} events acknowledged · ${count(p.events_per_s)} events/s`;
}

function describeSummary(s: SimulationSummary): string {
  const lines = [
    `${s.ok ? 'Simulated' : 'FAILED:'} ${s.sensors} sensors (seed ${s.seed}) for ${s.elapsed_s} s`,
    `  events      ${count(s.events_sent)} sent, ${count(s.events_acknowledged)} acknowledged: ${count(s.events_accepted)} accepted, ${count(s.events_filtered)} filtered, ${count(s.rejected)} rejected`,
    `  batches     ${count(s.batches)} (${s.duplicates} answered as duplicates, ${s.retries} retries)`,
    `  binaries    ${count(s.binaries)} uploaded`,
    `  throughput  ${count(s.events_per_s)} events/s, acknowledged in ${s.ack_latency_p50_ms} ms (p50) / ${s.ack_latency_p99_ms} ms (p99)`,
  ];
  if (s.checkin_failures) lines.push(`  check-ins   ${s.checkin_failures} lost`);
  for (const error of s.errors) lines.push(`  error: ${error}`);
  return lines.join('\n') + '\n';
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}
