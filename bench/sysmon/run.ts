/**
 * bench/sysmon: Sysmon events/s through the Elasticsearch-compatible bulk endpoint, end to end:
 * `vigil serve` over HTTPS on the embedded store, and a simulated Winlogbeat fleet in this process
 * that replays the OTRF recordings (shared/fixtures/sysmon) at full speed, doing a shipper's work
 * for every batch: its ECS documents (each serialized once at start) joined as bulk NDJSON and
 * gzipped, and the filtered reply Beats ask for read.
 *
 *   npm run build && node --import tsx bench/sysmon/run.ts [--duration 30] [--connections 8] [--batch-size 2000]
 *     [--cpu-prof DIR] [--server-flags="--max-semi-space-size=64"]
 *
 * Each replay round renames the recordings' hosts (WORKSTATION5 → WORKSTATION5-R17), so every
 * round's processes are new ones on new sensors, as a growing fleet's would be. Only the Sysmon
 * channel is shipped, as a Winlogbeat configured for Sysmon does. Prints one JSON line: Sysmon
 * events stored per second, Vigil events accepted per second, bulk p50/p99, peak server RSS, CPU
 * per event of server (and of its request thread and its three busiest others: the event writer and
 * the bulk reader among them) and shipper, and the load average.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { toEcs } from '../../test/support/sysmon-shapes.js';
import { loadAverage, rssBytes, threadCpu } from '../support/proc.js';
import { startVigilServer } from '../support/vigil-server.js';
import { calibrationLine } from '../support/calibration.js';

const FIXTURES = fileURLToPath(new URL('../../../shared/fixtures/sysmon/', import.meta.url));
const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '30' },
    connections: { type: 'string', default: '8' },
    'batch-size': { type: 'string', default: '2000' },
    /** A folder for the server's CPU profiles (one per thread), to see where its time goes. */
    'cpu-prof': { type: 'string' },
    /** Node options for the server, to measure V8 settings end to end (e.g. "--max-semi-space-size=64"). */
    'server-flags': { type: 'string', default: '' },
  },
});
// The machine's calibration, to read the figures below on another machine (bench/support/calibration.ts).
console.log(await calibrationLine());
const durationMs = Number(values.duration) * 1000;
const batchSize = Number(values['batch-size']);

/**
 * The recordings' Sysmon events, flat, in file order. The few without a record time get the
 * bench's start, as toEcs() would give them the time they are shipped.
 */
const shippedAt = new Date().toISOString();
const recorded = readdirSync(FIXTURES).filter((f) => f.endsWith('.jsonl.gz')).flatMap((file) =>
  gunzipSync(readFileSync(join(FIXTURES, file))).toString('utf8').split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((event) => event.Channel === 'Microsoft-Windows-Sysmon/Operational')
    .map((event): Record<string, unknown> => ({ '@timestamp': shippedAt, ...event })));

let resent = 0;

/** One request; sent once more if the server closed the kept-alive socket as it was reused (Beats retry too). */
async function call(agent: Agent, url: string, method: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; body: string }> {
  try {
    return await exchange(agent, url, method, headers, body);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') throw error;
    resent++;
    return exchange(agent, url, method, headers, body);
  }
}

function exchange(agent: Agent, url: string, method: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent, headers: body ? { ...headers, 'content-length': String(body.length) } : headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Each recorded event as its ECS document's UTF-8 bytes, cut where the round number goes in its
 * host's name, so a batch costs the shipper copying bytes per document rather than building and
 * serializing an object, or even joining and encoding text; the bytes are the same as a full
 * serialization's (checked below on two rounds). Winlogbeat serializes each event once, too, and
 * on the endpoint, not beside the server.
 */
const ROUND = '\u0001';
const documentParts = recorded.map((event) => {
  const [name, ...domain] = String(event.Hostname).split('.');
  return JSON.stringify(toEcs({ ...event, Hostname: [`${name}-R${ROUND}`, ...domain].join('.') })).split('\\u0001').map((part) => Buffer.from(part));
});

/** The pieces of one document's bytes in `round`, pushed onto `pieces`. */
function pushDocument(pieces: Buffer[], roundBytes: Buffer, index: number): void {
  const parts = documentParts[index]!;
  pieces.push(parts[0]!);
  for (let i = 1; i < parts.length; i++) pieces.push(roundBytes, parts[i]!);
}

for (const round of [0, 17]) {
  for (let i = 0; i < recorded.length; i++) {
    const event = recorded[i]!;
    const [name, ...domain] = String(event.Hostname).split('.');
    const pieces: Buffer[] = [];
    pushDocument(pieces, Buffer.from(String(round)), i);
    if (Buffer.concat(pieces).toString('utf8') !== JSON.stringify(toEcs({ ...event, Hostname: [`${name}-R${round}`, ...domain].join('.') }))) {
      throw new Error(`the prepared document ${i} of round ${round} differs from its serialization`);
    }
  }
}

const ACTION_LINE = Buffer.from(`${JSON.stringify({ create: { _index: 'logs-winlogbeat-8.15.0' } })}\n`);
const NEWLINE = Buffer.from('\n');

/** The shipper's work for one batch: round-renamed ECS documents as gzip bulk NDJSON (level 1, Beats' default). */
function bulkBody(round: number, from: number): { body: Buffer; events: number } {
  const pieces: Buffer[] = [];
  const roundBytes = Buffer.from(String(round));
  let events = 0;
  for (let i = from; i < Math.min(from + batchSize, recorded.length); i++, events++) {
    pieces.push(ACTION_LINE);
    pushDocument(pieces, roundBytes, i);
    pieces.push(NEWLINE);
  }
  return { body: gzipSync(Buffer.concat(pieces), { level: 1 }), events };
}

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-sysmon-'));
const server = await startVigilServer({
  dataDir,
  nodeFlags: [
    ...values['server-flags']!.split(' ').filter((flag) => flag !== ''),
    ...(values['cpu-prof'] === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', values['cpu-prof']]),
  ],
});
const { url, token } = server;
try {
  const agent = new Agent({ keepAlive: true, ca: server.ca, maxSockets: Number(values.connections) });
  const created = await call(agent, `${url}/api/v1/group/1/ingest_key`, 'POST', { 'x-auth-token': token, 'content-type': 'application/json' }, Buffer.from('{}'));
  const headers = {
    authorization: `Bearer ${(JSON.parse(created.body) as { key: string }).key}`,
    'content-type': 'application/x-ndjson', 'content-encoding': 'gzip',
  };

  const loadBefore = loadAverage();
  const threadsBefore = threadCpu(server.pid);
  const shipperCpuBefore = process.cpuUsage();
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssBytes(server.pid))), 1000);
  const latencies: number[] = [];
  let sent = 0;
  let stored = 0;
  let accepted = 0;
  let refused = 0;
  let next = 0;
  const started = Date.now();
  // Each connection is one shipper sending its next batch when the last is answered, as Beats do.
  const shipper = async () => {
    while (Date.now() - started < durationMs) {
      const position = next;
      next += batchSize;
      const round = Math.floor(position / recorded.length);
      const { body, events } = bulkBody(round, position % recorded.length);
      const sentAt = performance.now();
      // As Beats ask, with every bulk request, for each item's status and error alone.
      const reply = await call(agent, `${url}/ingest/elastic/_bulk?filter_path=errors,items.*.error,items.*.status`, 'POST', headers, body);
      latencies.push(performance.now() - sentAt);
      if (reply.status !== 200) throw new Error(`bulk answered ${reply.status}: ${reply.body.slice(0, 300)}`);
      const items = (JSON.parse(reply.body) as { items: Record<string, { status: number }>[] }).items;
      sent += events;
      for (const item of items) {
        // 201 stored, 200 not Vigil's to keep, 400 refused by name.
        const { status } = Object.values(item)[0]!;
        if (status === 201) stored++;
        else if (status >= 300) refused++;
      }
    }
  };
  await Promise.all(Array.from({ length: Number(values.connections) }, shipper));
  const elapsedS = (Date.now() - started) / 1000;
  clearInterval(sampler);
  const stats = await call(agent, `${url}/api/v1/ingest/stats`, 'GET', { 'x-auth-token': token });
  accepted = (JSON.parse(stats.body) as { events_accepted?: number }).events_accepted ?? 0;
  const threads = [...threadCpu(server.pid)].map(([thread, seconds]) => [thread, seconds - (threadsBefore.get(thread) ?? 0)] as const);
  const serverCpu = threads.reduce((total, [, seconds]) => total + seconds, 0);
  // The main thread's id is the process's (HTTP, TLS, the pipeline); Node 20 cannot name the
  // others, of which the event writer and the bulk reader are the busiest.
  const requestThreadCpu = threads.find(([thread]) => thread === server.pid)?.[1] ?? 0;
  const otherThreadsCpu = threads.filter(([thread]) => thread !== server.pid).map(([, seconds]) => seconds).sort((a, b) => b - a);
  const shipperUsage = process.cpuUsage(shipperCpuBefore);
  latencies.sort((a, b) => a - b);
  const perEvent = (seconds: number) => Math.round((seconds / sent) * 1e7) / 10;
  console.log(JSON.stringify({
    duration_s: Math.round(elapsedS * 10) / 10,
    sysmon_events_sent: sent,
    sysmon_events_stored: stored,
    sysmon_events_refused: refused,
    bulk_requests_resent: resent,
    sysmon_events_per_s: Math.round(stored / elapsedS),
    vigil_events_accepted_per_s: Math.round(accepted / elapsedS),
    bulk_p50_ms: Math.round(latencies[Math.floor(latencies.length * 0.5)] ?? 0),
    bulk_p99_ms: Math.round(latencies[Math.floor(latencies.length * 0.99)] ?? 0),
    server_peak_rss_mb: Math.round(peakRss / 1024 / 1024),
    server_cpu_us_per_event: perEvent(serverCpu),
    server_request_thread_cpu_us_per_event: perEvent(requestThreadCpu),
    server_busiest_other_threads_cpu_us_per_event: otherThreadsCpu.slice(0, 3).map(perEvent),
    shipper_cpu_us_per_event: perEvent((shipperUsage.user + shipperUsage.system) / 1e6),
    load_average: [loadBefore, loadAverage()],
  }));
  agent.destroy();
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
