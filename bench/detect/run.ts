/**
 * bench/detect: what detection costs the ingest path. Runs bench/ingest's workload (`vigil
 * simulate` over HTTPS into `vigil serve`) twice on fresh data dirs: with no detection content, and
 * with 500 enabled watchlists and a 10,000-IOC feed created through the API first. Reports for each
 * events/s, server CPU per event, and the matcher's commit-to-hit lag (logged by the server at
 * shutdown).
 *
 *   npm run build && node --import tsx bench/detect/run.ts [--sensors 16] [--duration 120]
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { benchFeed, benchWatchlists } from './content.js';

const BIN = fileURLToPath(new URL('../../bin/vigil.js', import.meta.url));
const { values } = parseArgs({ options: { sensors: { type: 'string', default: '16' }, duration: { type: 'string', default: '120' } } });

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** A JSON API call to the server's self-signed HTTPS endpoint. */
function api(url: string, token: string, method: string, path: string, body?: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { method, rejectUnauthorized: false, headers: { 'x-auth-token': token, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`))));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function run(withDetection: boolean) {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-detect-'));
  const server = spawn(process.execPath, [BIN, 'serve', '--data-dir', dataDir, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const check = setInterval(() => {
        const match = /"url":"(https:\/\/[^"]+)".*Vigil is listening/.exec(output);
        if (match) {
          clearInterval(check);
          resolve(match[1]!);
        }
      }, 50);
      server.on('exit', (code) => reject(new Error(`server exited ${code}: ${output}`)));
    });
    const token = spawnSync(process.execPath, [BIN, 'token', 'admin', '--data-dir', dataDir], { encoding: 'utf8' }).stdout.trim();
    if (withDetection) {
      for (const watchlist of benchWatchlists(500)) {
        const { id } = await api(url, token, 'POST', '/api/v1/watchlist', watchlist) as { id: number };
        await api(url, token, 'PUT', `/api/v1/watchlist/${id}/action_type/3`, { enabled: true });
      }
      const feedFile = join(dataDir, 'bench-feed.json');
      writeFileSync(feedFile, JSON.stringify(benchFeed(10_000)));
      const feed = await api(url, token, 'POST', '/api/v1/feed', { feed_url: pathToFileURL(feedFile).href }) as { id: number };
      await api(url, token, 'POST', `/api/v1/feed/${feed.id}/action`, { action_type: 3 });
    }
    const cpuBefore = cpuSeconds(server.pid!);
    const simulator = spawnSync(process.execPath, [
      BIN, 'simulate', '--server', url, '--token', token, '--sensors', values.sensors!, '--duration', values.duration!, '--seed', '1', '--json',
    ], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (simulator.status !== 0) throw new Error(`simulator exited ${simulator.status}: ${simulator.stderr}`);
    const serverCpu = cpuSeconds(server.pid!) - cpuBefore;
    const summary = JSON.parse(simulator.stdout.trim().split('\n').at(-1)!);
    const alerts = withDetection ? (await api(url, token, 'GET', '/api/v2/alert?rows=0') as { total_results: number }).total_results : 0;
    server.kill('SIGTERM');
    await new Promise((resolve) => server.on('exit', resolve));
    const lag = /"detectionLag":(\{[^}]*\})/.exec(output)?.[1];
    return {
      detection: withDetection ? '500 watchlists + 10,000 IOCs' : 'none',
      events_per_s: summary.events_per_s,
      events: summary.events_acknowledged,
      ack_p99_ms: summary.ack_latency_p99_ms,
      server_cpu_us_per_event: Math.round((serverCpu / summary.events_acknowledged) * 1e7) / 10,
      alerts,
      lag: lag ? JSON.parse(lag) : null,
    };
  } finally {
    if (server.exitCode === null) server.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const none = await run(false);
console.log(JSON.stringify(none));
const full = await run(true);
console.log(JSON.stringify(full));
console.log(JSON.stringify({ slower_pct: Math.round((1 - full.events_per_s / none.events_per_s) * 1000) / 10,
  cpu_per_event_more_pct: Math.round((full.server_cpu_us_per_event / none.server_cpu_us_per_event - 1) * 1000) / 10 }));
