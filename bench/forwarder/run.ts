/**
 * bench/forwarder: what forwarding every raw event costs ingest (issue 21 point 4). The same
 * end-to-end ingest as bench/ingest (`vigil simulate` over HTTPS into `vigil serve` on the
 * embedded store) runs in one session without forwarder outputs and with two that take every raw
 * sensor event, a JSON file and a Splunk HEC receiver on loopback, alternating for `--rounds`.
 *
 *   npm run build && node --import tsx bench/forwarder/run.ts [--sensors 32] [--duration 60] [--batch-size 2000] [--seed 1] [--rounds 2]
 *
 * Prints one JSON line per run and a summary: events/s each way over all rounds, the cost in percent, how many
 * records each output delivered, how far behind it was when ingest ended and how that lag moved
 * during the run (sampled every 5 s; the trend is the least-squares slope over the run's second
 * half, seconds of lag per second: near 0 keeps up, 1 stands still), and the load average. The
 * HEC receiver only inflates and counts lines (one envelope each), so that it takes little of the
 * two cores it shares with the server and the simulator. `--share` sets forwarderMaxBusyShare;
 * `--outputs file` or `--outputs hec` forwards to that one output alone (issue 21 point 4 asks the
 * cost of either). `--cpu-prof DIR` profiles the server, each of its threads to a file in DIR.
 * The summary's CPU figures are the server's CPU time (all threads) per event ingested without
 * outputs, and what forwarding added to it per event forwarded.
 *
 *   npm run build && node --import tsx bench/forwarder/run.ts --duration 60 --rounds 1 --share 1
 */
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { request } from 'node:https';
import { dirname, join } from 'node:path';
import { createGunzip } from 'node:zlib';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { cpuSeconds } from '../support/proc.js';

const BIN = fileURLToPath(new URL('../../bin/vigil.js', import.meta.url));
const { values } = parseArgs({
  options: {
    sensors: { type: 'string', default: '32' },
    duration: { type: 'string', default: '60' },
    'batch-size': { type: 'string', default: '2000' },
    seed: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '2' },
    share: { type: 'string' },
    outputs: { type: 'string', default: 'file,hec' },
    'cpu-prof': { type: 'string' },
  },
});
const OUTPUT_KINDS = new Set(values.outputs!.split(','));
if (OUTPUT_KINDS.size === 0 || [...OUTPUT_KINDS].some((kind) => kind !== 'file' && kind !== 'hec')) {
  throw new Error(`--outputs takes file, hec or file,hec, not ${values.outputs}`);
}

/** A HEC that accepts everything and counts the envelopes (one a line), inflating gzip bodies. */
async function startCountingHec(): Promise<{ url: string; count: () => number; close: () => void }> {
  let lines = 0;
  const server = createServer((req, res) => {
    const body = req.headers['content-encoding'] === 'gzip' ? req.pipe(createGunzip()) : req;
    body.on('data', (chunk: Buffer) => {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    });
    body.on('end', () => {
      // The last envelope of a body has no newline after it.
      lines++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"text":"Success","code":0}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/services/collector/event`, count: () => lines, close: () => server.close() };
}

function api(url: string, token: string, ca: Buffer, method: string, path: string, body?: object): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method, ca, headers: { 'X-Auth-Token': token, 'content-type': 'application/json' } }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => (response.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(`${method} ${path}: ${response.statusCode} ${text}`))));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function outputStatus(url: string, token: string, ca: Buffer, id: number): Promise<{ lag_seconds: number; forwarded: number }> {
  const state = await api(url, token, ca, 'GET', `/api/v1/forwarder/outputs/${id}/status`) as { sources: { lag_seconds: number; forwarded: number }[] };
  return { lag_seconds: state.sources[0]?.lag_seconds ?? 0, forwarded: state.sources[0]?.forwarded ?? 0 };
}

async function sampleLag(url: string, token: string, ca: Buffer, outputs: { id: number }[], atS: number, samples: Map<number, [number, number][]>): Promise<void> {
  for (const output of outputs) samples.get(output.id)!.push([atS, (await outputStatus(url, token, ca, output.id)).lag_seconds]);
}

/** Least-squares slope of lag over time: seconds of lag gained per second of run. */
function trend(points: readonly [number, number][]): number | null {
  if (points.length < 2) return null;
  const meanT = points.reduce((sum, [t]) => sum + t, 0) / points.length;
  const meanL = points.reduce((sum, [, l]) => sum + l, 0) / points.length;
  const covariance = points.reduce((sum, [t, l]) => sum + (t - meanT) * (l - meanL), 0);
  const variance = points.reduce((sum, [t]) => sum + (t - meanT) ** 2, 0);
  return Math.round((covariance / variance) * 1000) / 1000;
}

/** Lines in the output file and the files it rotated to. */
async function countLines(dir: string): Promise<number> {
  let lines = 0;
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    for await (const chunk of createReadStream(join(dir, name)) as AsyncIterable<Buffer>) {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    }
  }
  return lines;
}

async function run(forwarding: boolean): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-forwarder-'));
  const hec = await startCountingHec();
  const env = values.share === undefined ? process.env : { ...process.env, VIGIL_FORWARDER_MAX_BUSY_SHARE: values.share };
  const profile = values['cpu-prof'] === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`];
  const server = spawn(process.execPath, [...profile, BIN, 'serve', '--data-dir', dataDir, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'], env });
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
    const ca = readFileSync(join(dataDir, 'tls', 'cert.pem'));
    const file = join(dataDir, 'forwarder', 'events.json');
    const outputs: { id: number; name: string }[] = [];
    if (forwarding && OUTPUT_KINDS.has('file')) {
      outputs.push(await api(url, token, ca, 'POST', '/api/v1/forwarder/outputs', { name: 'file', type: 'file', path: 'events.json', events_raw_sensor: ['ALL'] }) as { id: number; name: string });
    }
    if (forwarding && OUTPUT_KINDS.has('hec')) {
      outputs.push(await api(url, token, ca, 'POST', '/api/v1/forwarder/outputs', { name: 'hec', type: 'http', url: hec.url, splunk_token: 'bench', events_raw_sensor: ['ALL'] }) as { id: number; name: string });
    }
    const load = loadavg();
    const simulator = spawn(process.execPath, [
      BIN, 'simulate', '--server', url, '--token', token, '--sensors', values.sensors!, '--duration', values.duration!,
      '--batch-size', values['batch-size']!, '--seed', values.seed!, '--json',
    ], { stdio: ['ignore', 'pipe', 'inherit'] });
    let report = '';
    simulator.stdout.on('data', (chunk: Buffer) => (report += chunk.toString()));
    const began = Date.now();
    const serverCpuBefore = cpuSeconds(server.pid!);
    const samples = new Map(outputs.map((output) => [output.id, [] as [number, number][]]));
    const sampler = setInterval(() => void sampleLag(url, token, ca, outputs, (Date.now() - began) / 1000, samples), 5000);
    const status = await new Promise<number | null>((resolve) => simulator.on('exit', resolve));
    clearInterval(sampler);
    const serverCpu = cpuSeconds(server.pid!) - serverCpuBefore;
    if (status !== 0) throw new Error(`simulator exited with ${status}`);
    const summary = JSON.parse(report.trim().split('\n').at(-1)!) as { events_per_s: number; events_acknowledged: number };
    const lag = await Promise.all(outputs.map(async (output) => {
      const state = await outputStatus(url, token, ca, output.id);
      const series = samples.get(output.id)!;
      return {
        output: output.name, forwarded_at_end: state.forwarded, lag_seconds_at_end: state.lag_seconds,
        lag_trend: trend(series.slice(Math.floor(series.length / 2))), lag_samples: series.map(([, lagS]) => Math.round(lagS)),
      };
    }));
    return {
      forwarding, ...summary, server_cpu_s: serverCpu, server_cpu_us_per_event: Math.round((serverCpu / summary.events_acknowledged) * 1e7) / 10,
      load_average_at_start: load.map((l) => Math.round(l * 100) / 100), load_average_at_end: loadavg().map((l) => Math.round(l * 100) / 100),
      outputs: lag, file_lines_at_end: forwarding ? await countLines(dirname(file)) : 0, hec_events_at_end: forwarding ? hec.count() : 0,
    };
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.on('exit', resolve));
    hec.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// Rounds alternate the two runs, so that a change in what else the machine does falls on both.
const runs: Record<string, unknown>[] = [];
for (let round = 0; round < Number(values.rounds); round++) {
  for (const forwarding of [false, true]) {
    const result = await run(forwarding);
    console.log(JSON.stringify({ round, ...result }));
    runs.push(result);
  }
}
const total = (forwarding: boolean) => {
  const chosen = runs.filter((r) => r.forwarding === forwarding);
  return chosen.reduce((sum, r) => sum + (r.events_acknowledged as number), 0) / chosen.reduce((sum, r) => sum + (r.elapsed_s as number), 0);
};
const [without, withForwarding] = [total(false), total(true)];
/**
 * The server's CPU for forwarding, per event forwarded: what it used beyond ingest's CPU per event
 * (from the runs without outputs) for the events it ingested. CPU time, unlike rates, changes
 * little with what else the machine runs.
 */
const cpuPerEvent = (runs: Record<string, unknown>[]) => runs.reduce((sum, r) => sum + (r.server_cpu_s as number), 0) / runs.reduce((sum, r) => sum + (r.events_acknowledged as number), 0);
const forwardingRuns = runs.filter((r) => r.forwarding);
const ingestCpuPerEvent = cpuPerEvent(runs.filter((r) => !r.forwarding));
const forwarderCpu = forwardingRuns.reduce((sum, r) => sum + (r.server_cpu_s as number) - ingestCpuPerEvent * (r.events_acknowledged as number), 0);
const forwarded = forwardingRuns.reduce((sum, r) => sum + (r.outputs as { forwarded_at_end: number }[]).reduce((s, o) => s + o.forwarded_at_end, 0), 0);
console.log(JSON.stringify({
  events_per_s_without: Math.round(without), events_per_s_forwarding: Math.round(withForwarding),
  cost_percent: Math.round((1 - withForwarding / without) * 1000) / 10,
  ingest_cpu_us_per_event: Math.round(ingestCpuPerEvent * 1e7) / 10,
  forwarder_cpu_us_per_forwarded_event: Math.round((forwarderCpu / forwarded) * 1e7) / 10,
  lag_at_end: runs.filter((r) => r.forwarding).map((r) => (r.outputs as { output: string; lag_seconds_at_end: number; lag_trend: number | null }[])
    .map(({ output, lag_seconds_at_end, lag_trend }) => ({ output, lag_seconds_at_end, lag_trend }))),
}));
