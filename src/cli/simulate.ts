/**
 * `vigil simulate`: runs a simulated fleet against a server and prints what happened. Progress goes
 * to stderr on one updating line when stderr is a terminal; the summary goes to stdout. The exit
 * code is 1 unless every event sent was acknowledged and accepted (or filtered).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SensorRequestError } from '../sensor/client.js';
import { InstallerPackageError, readInstallerPackage } from '../sensor/installer-package.js';
import { simulate, type SimulationOptions, type SimulationProgress, type SimulationSummary } from '../sensor/simulator.js';

export interface SimulateCommandOptions {
  installer?: string;
  server?: string;
  token?: string;
  sensors: number;
  idleSensors?: number;
  processes?: number;
  duration?: number;
  seed?: string;
  rate?: number;
  group?: number;
  batchSize: number;
  checkinInterval: number;
  ca?: string;
  gzip: boolean;
  json?: boolean;
  progressJson?: boolean;
}

const DEFAULT_PROCESSES = 100;
const PROGRESS_JSON_EVERY_MS = 5_000;

export async function runSimulate(options: SimulateCommandOptions): Promise<void> {
  const progressLine = options.progressJson ? progressJsonLines() : process.stderr.isTTY ? (p: SimulationProgress) => process.stderr.write(`\r\x1b[K${describeProgress(p)}`) : undefined;
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  try {
    if (options.sensors + (options.idleSensors ?? 0) === 0) throw new UsageError('simulate needs at least one sensor: --sensors or --idle-sensors');
    const enrolment = await enrolmentOf(options);
    const summary = await simulate({
      ...enrolment,
      sensors: options.sensors,
      idleSensors: options.idleSensors,
      processes: options.processes ?? (options.duration === undefined ? DEFAULT_PROCESSES : undefined),
      durationS: options.duration,
      seed: options.seed ?? randomBytes(4).toString('hex'),
      rate: options.rate,
      batchSize: options.batchSize,
      checkinIntervalS: options.checkinInterval,
      gzip: options.gzip,
      onProgress: progressLine,
      signal: stop.signal,
    });
    if (progressLine && !options.progressJson) process.stderr.write('\r\x1b[K');
    process.stdout.write(options.json ? JSON.stringify(summary) + '\n' : describeSummary(summary));
    if (!summary.ok) process.exitCode = 1;
  } catch (error) {
    if (!(error instanceof SensorRequestError || error instanceof InstallerPackageError || error instanceof UsageError)) throw error;
    process.stderr.write(`vigil: ${error.message}\n`);
    process.exitCode = 1;
  } finally {
    process.off('SIGINT', onSignal);
  }
}

class UsageError extends Error {}

/** Progress as JSON lines for a program to follow (a benchmark's CPU per check-in), spaced out. */
function progressJsonLines(): (p: SimulationProgress) => void {
  let lastMs = 0;
  return (p) => {
    if (Date.now() - lastMs < PROGRESS_JSON_EVERY_MS) return;
    lastMs = Date.now();
    process.stderr.write(JSON.stringify({ at_ms: lastMs, ...p }) + '\n');
  };
}

/**
 * Where the sensors enrol and how: from an installer package (its server URL, certificate and
 * install code; --server and --ca still override the first two), or from --server and --token.
 */
async function enrolmentOf(options: SimulateCommandOptions): Promise<Pick<SimulationOptions, 'server' | 'token' | 'installCode' | 'groupId' | 'ca'>> {
  const ca = options.ca === undefined ? undefined : readFileSync(options.ca, 'utf8');
  if (options.installer === undefined) {
    if (options.server === undefined || options.token === undefined) {
      throw new UsageError('simulate needs --installer FILE, or --server URL and --token TOKEN');
    }
    return { server: options.server, token: options.token, groupId: options.group ?? 1, ca };
  }
  if (options.token !== undefined || options.group !== undefined) {
    throw new UsageError('--installer holds the group and its install code: leave out --token and --group');
  }
  const { settings, ca: packageCa } = await readInstallerPackage(readPackage(options.installer));
  return { server: options.server ?? settings.server_url, installCode: settings.install_code, ca: ca ?? packageCa };
}

function readPackage(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new UsageError(`cannot read --installer ${file}: ${(error as Error).message}`);
  }
}

/** The one progress line shown on a terminal; exported for its test. */
export function describeProgress(p: SimulationProgress): string {
  return `${p.elapsed_s.toFixed(1)} s · ${p.sensors_online} sensors online · ${count(p.events_acknowledged)} of ${count(p.events_sent)} events acknowledged · ${count(p.events_per_s)} events/s`;
}

function describeSummary(s: SimulationSummary): string {
  const lines = [
    `${s.ok ? 'Simulated' : 'FAILED:'} ${s.sensors} sensors${s.idle_sensors ? ` and ${s.idle_sensors} idle ones` : ''} (seed ${s.seed}) for ${s.elapsed_s} s`,
    `  events      ${count(s.events_sent)} sent, ${count(s.events_acknowledged)} acknowledged: ${count(s.events_accepted)} accepted, ${count(s.events_filtered)} filtered, ${count(s.rejected)} rejected`,
    `  batches     ${count(s.batches)} (${s.duplicates} answered as duplicates, ${s.retries} retries)`,
    `  binaries    ${count(s.binaries)} uploaded`,
    `  throughput  ${count(s.events_per_s)} events/s, acknowledged in ${s.ack_latency_p50_ms} ms (p50) / ${s.ack_latency_p99_ms} ms (p99)`,
  ];
  lines.push(`  check-ins   ${count(s.checkins)} answered in ${s.checkin_latency_p50_ms} ms (p50) / ${s.checkin_latency_p99_ms} ms (p99)${s.checkin_failures ? `, ${s.checkin_failures} lost` : ''}`);
  for (const error of s.errors) lines.push(`  error: ${error}`);
  return lines.join('\n') + '\n';
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}
