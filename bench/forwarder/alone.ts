/**
 * bench/forwarder/alone: the forwarder's own CPU per raw event, without ingest beside it. The
 * end-to-end bench (run.ts) derives the forwarder's CPU from the server's, less ingest's per event
 * from another run; under load, ingest's CPU per event moves with its rate by more than the
 * forwarder costs. Here `vigil serve` and `vigil simulate` first fill a data dir (no outputs),
 * then this process reads every raw chunk as the forwarder's thread does (RawEventSource, batches
 * of 2,000 chunks, a fresh recent-chunk cache each pass) and delivers it, printing process CPU
 * time (user + system) per event for each part:
 *   query   the chunk rows (SQL), load  their bytes, read  all of RawEventSource.read,
 *   encode  each record's JSON into a batch's bytes, file / hec  FileOutput.send / HttpOutput.send
 *   (HEC to a receiver in a child process that inflates and discards, as run.ts's).
 *
 *   npm run build && node --import tsx bench/forwarder/alone.ts [--sensors 32] [--duration 20] [--passes 5] [--data-dir DIR]
 *
 * `--data-dir` reuses a filled data dir (kept, with `--keep`, from an earlier run), so that two
 * builds can be compared on the same chunks: copy this script into the other build's tree.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { SqliteDatabase } from '../../src/db/dialects/sqlite.js';
import { RawEventSource } from '../../src/modules/forwarder/forwarder-raw.js';
import { sqliteChunkLoader } from '../../src/modules/forwarder/forwarder-raw.sqlite.js';
import { encodeRecord, type Forwardable } from '../../src/modules/forwarder/forwarder-format.js';
import { BatchBytes } from '../../src/modules/forwarder/outputs/batch-bytes.js';
import { FileOutput } from '../../src/modules/forwarder/outputs/file-output.js';
import { HttpOutput } from '../../src/modules/forwarder/outputs/http-output.js';
import type { ForwardOutput } from '../../src/modules/forwarder/outputs/output.js';
import { BIN, startVigilServer } from '../support/vigil-server.js';

const BATCH_CHUNKS = 2000;
const { values } = parseArgs({
  options: {
    sensors: { type: 'string', default: '32' },
    duration: { type: 'string', default: '20' },
    passes: { type: 'string', default: '5' },
    'data-dir': { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});

/** A data dir filled by the real server from the simulator, as run.ts's runs without outputs. */
async function fill(dataDir: string): Promise<void> {
  const server = await startVigilServer({ dataDir });
  try {
    const simulated = spawnSync(process.execPath, [
      BIN, 'simulate', '--server', server.url, '--token', server.token, '--sensors', values.sensors!, '--duration', values.duration!, '--seed', '1', '--json',
    ], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (simulated.status !== 0) throw new Error(`simulator exited with ${simulated.status}`);
  } finally {
    await server.stop();
  }
}

/** A HEC receiver in a child process (its inflating is not this process's CPU). */
async function startReceiver(): Promise<{ url: string; stop: () => void }> {
  const receiver = spawn(process.execPath, ['-e', `
    const server = require('node:http').createServer((req, res) => {
      req.pipe(require('node:zlib').createGunzip()).resume().on('end', () => res.writeHead(200).end('{"text":"Success","code":0}'));
    });
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => receiver.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())));
  return { url: `http://127.0.0.1:${port}/services/collector/event`, stop: () => receiver.kill() };
}

const cpuMicros = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return used.user + used.system;
};

const dataDir = values['data-dir'] ?? mkdtempSync(join(tmpdir(), 'vigil-bench-forwarder-alone-'));
if (values['data-dir'] === undefined) await fill(dataDir);
const db = SqliteDatabase.open(join(dataDir, 'vigil.db'));
db.connection.pragma('wal_autocheckpoint = 0');
const loader = sqliteChunkLoader(db);
const origin = { serverName: 'bench', version: '7.8.0' };
const outDir = mkdtempSync(join(tmpdir(), 'vigil-bench-forwarder-alone-out-'));
const receiver = await startReceiver();
const outputs: Record<'file' | 'hec', ForwardOutput> = {
  file: new FileOutput({ path: join(outDir, 'events.json'), rotateBytes: 1e15, rotateMs: 1e15 }, 'json'),
  hec: new HttpOutput({ url: receiver.url, splunkToken: 'bench', timeoutMs: 60_000 }, 'json'),
};
const QUERY = `SELECT c.written_ms, c.segment_row, c.chunk, s.segment_id, p.sensor_id, p.pid, p.start_ms, p.hostname, p.path, p.md5, ${loader.locator}
  FROM ${loader.table} c ${loader.joins}
  WHERE c.written_ms IS NOT NULL AND (c.written_ms, c.segment_row, c.chunk) > (?, ?, ?) ORDER BY c.written_ms, c.segment_row, c.chunk LIMIT ?`;

const totals = { query: 0, load: 0, read: 0, encode: 0, file: 0, hec: 0 };
let events = 0;
let chunks = 0;
const load = loadavg()[0]!;
for (let pass = 0; pass < Number(values.passes); pass++) {
  // The parts one after another, each over the whole data set, as the thread meets them.
  let after: readonly (number | string)[] = [0, -1, -1];
  for (;;) {
    let began = process.cpuUsage();
    const refs = await db.all<Parameters<typeof loader.load>[0][number]>(QUERY, [...after as number[], BATCH_CHUNKS]);
    totals.query += cpuMicros(began);
    if (refs.length === 0) break;
    began = process.cpuUsage();
    loader.load(refs);
    totals.load += cpuMicros(began);
    chunks += refs.length;
    const last = refs.at(-1)!;
    after = [last.written_ms, last.segment_row, last.chunk];
  }
  const source = new RawEventSource(db, loader, origin);
  const bytes = new BatchBytes();
  after = source.start(0);
  for (;;) {
    let began = process.cpuUsage();
    const batch = await source.read(after, Number.MAX_SAFE_INTEGER, BATCH_CHUNKS);
    totals.read += cpuMicros(began);
    if (batch === undefined) break;
    began = process.cpuUsage();
    bytes.reset();
    for (const record of batch.records as Forwardable[]) bytes.appendLine(encodeRecord(record, 'json'));
    totals.encode += cpuMicros(began);
    for (const kind of ['file', 'hec'] as const) {
      began = process.cpuUsage();
      await outputs[kind].send(batch.records);
      totals[kind] += cpuMicros(began);
    }
    events += batch.records.length;
    after = batch.last;
  }
}
await Promise.all(Object.values(outputs).map((output) => output.close()));
receiver.stop();
await db.close();
rmSync(outDir, { recursive: true, force: true });
if (values['data-dir'] === undefined && !values.keep) rmSync(dataDir, { recursive: true, force: true });
const perEvent = Object.fromEntries(Object.entries(totals).map(([part, micros]) => [part, Math.round((micros / events) * 100) / 100]));
console.log(JSON.stringify({
  events_per_pass: events / Number(values.passes), events_per_chunk: Math.round((events / chunks) * 10) / 10,
  cpu_us_per_event: perEvent, load_average_at_start: Math.round(load * 100) / 100, data_dir: values.keep ? dataDir : undefined,
  commit: spawnSync('git', ['log', '--oneline', '-1'], { encoding: 'utf8', cwd: fileURLToPath(new URL('.', import.meta.url)) }).stdout.trim(),
}));
