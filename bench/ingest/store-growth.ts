/**
 * bench/ingest/store-growth: the writer's cost per event as the database grows. stages.ts times
 * the store on an empty file; the end-to-end run writes tens of millions of events, and every
 * B-tree insert costs more once an index no longer fits in the page cache. This commits the
 * simulator's workload round after round into one store and prints the writer's CPU time per
 * event for each round, the bytes it wrote per event (WAL frames and checkpoints: a measure of
 * write amplification that the machine's load does not blur), and the file's size.
 *
 *   node --import tsx bench/ingest/store-growth.ts [--rounds 10] [--events-per-round 400000] [--sensors 16]
 *
 * Generating and preparing a round's events is not timed; only SqliteEventStore.commit is. As in
 * the server, checkpoints run on their own thread (src/db/wal-checkpointer.ts): store_us_per_event
 * is the writer's thread alone, process_us_per_event adds the checkpointer's (and anything else
 * of this process), and the bytes written are the whole process's.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/config/load.js';
import { openDatabase, SQLITE_FILE } from '../../src/db/open.js';
import { WalCheckpointer, writerWalLimits } from '../../src/db/wal-checkpointer.js';
import { FilterGate } from '../../src/ingest/ingress-gate.js';
import { normalizeEvent } from '../../src/ingest/normalize.js';
import { EventPreparer } from '../../src/ingest/prepare.js';
import { chunkDirectory } from '../../src/modules/partitions/partition-files.js';
import { SqliteEventStore } from '../../src/modules/processes/event-store.sqlite.js';
import type { IngestBatch } from '../../src/ingest/event-store.js';
import { BinaryCatalog } from '../../src/sensor/binaries.js';
import { Endpoint } from '../../src/sensor/endpoint.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '10' },
    'events-per-round': { type: 'string', default: '400000' },
    sensors: { type: 'string', default: '16' },
    'batch-size': { type: 'string', default: '2000' },
    'batches-per-commit': { type: 'string', default: '10' },
  },
});
const rounds = Number(values.rounds);
const perRound = Number(values['events-per-round']);
const sensorCount = Number(values.sensors);
const batchSize = Number(values['batch-size']);
const perCommit = Number(values['batches-per-commit']);

const binaries = new BinaryCatalog('1');
const endpoints = Array.from({ length: sensorCount }, (_, index) => new Endpoint({ seed: '1', index, startMs: Date.now(), binaries }));
const preparer = new EventPreparer(new FilterGate());
const sequences = new Array<number>(sensorCount).fill(0);

/** One round of upload batches, round-robin over the sensors, ready for the writer. */
function prepareRound(): IngestBatch[] {
  const batches: IngestBatch[] = [];
  for (let made = 0; made < perRound; made += batchSize) {
    const index = batches.length % sensorCount;
    const endpoint = endpoints[index]!;
    const events = endpoint.take(batchSize).map(normalizeEvent);
    const prepared = preparer.prepare({ sensorId: index + 1, groupId: 1, osType: endpoint.os }, events);
    batches.push({
      sensor: { id: index + 1, groupId: 1, hostname: endpoint.hostname, hostType: 'workstation', osType: endpoint.os },
      sequence: ++sequences[index]!,
      ...prepared,
      counters: new Map(),
    });
  }
  return batches;
}

/** This process's write calls and bytes so far (Linux /proc): a measure of write amplification that the machine's load does not blur. */
function writesSoFar(): { calls: number; bytes: number } {
  const io = readFileSync('/proc/self/io', 'utf8');
  const field = (name: string) => Number(new RegExp(`${name}: (\\d+)`).exec(io)?.[1] ?? 0);
  return { calls: field('syscw'), bytes: field('wchar') };
}

/** CPU time of this (the main, the writer's) thread alone, in µs: /proc counts it per thread. */
function threadCpuUs(): number {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / 100) * 1e6;
}

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-growth-'));
try {
  const db = await openDatabase(loadConfig({ dataDir }));
  for (const endpoint of endpoints) {
    await db.run(
      `INSERT INTO sensors (group_id, secret_hash, os_type, host_type, computer_name, build_version_string, registration_ms)
       VALUES (1, 'x', ?, 'workstation', ?, '006.001.002.71109', 0)`,
      [endpoint.os, endpoint.hostname],
    );
  }
  writerWalLimits(db.connection);
  const checkpointer = new WalCheckpointer(join(dataDir, SQLITE_FILE), { syncBefore: chunkDirectory(join(dataDir, SQLITE_FILE)) });
  const store = new SqliteEventStore(db, { maxEventsPerSegment: 10_000, windowMs: 600_000 });
  for (let round = 1; round <= rounds; round++) {
    const batches = prepareRound();
    const cpuBefore = process.cpuUsage();
    const threadBefore = threadCpuUs();
    const writesBefore = writesSoFar();
    for (let i = 0; i < batches.length; i += perCommit) await store.commit(batches.slice(i, i + perCommit));
    const cpu = process.cpuUsage(cpuBefore);
    const thread = threadCpuUs() - threadBefore;
    const writes = writesSoFar();
    console.log(JSON.stringify({
      round,
      events_stored: round * perRound,
      store_us_per_event: Number((thread / perRound).toFixed(2)),
      process_us_per_event: Number(((cpu.user + cpu.system) / perRound).toFixed(2)),
      process_system_us_per_event: Number((cpu.system / perRound).toFixed(2)),
      write_calls_per_event: Number(((writes.calls - writesBefore.calls) / perRound).toFixed(2)),
      written_bytes_per_event: Math.round((writes.bytes - writesBefore.bytes) / perRound),
      db_mb: Math.round(statSync(join(dataDir, SQLITE_FILE)).size / 1e6),
    }));
  }
  await checkpointer.close();
  await db.close();
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
