/**
 * bench/search/generate: a search benchmark's data dir — about 2,000,000 process segments from
 * simulator endpoints, written through the real ingest preparation and the real embedded event
 * store (EventPreparer + SqliteEventStore.commit), and the binaries the endpoints reference.
 *
 *   node --import tsx bench/search/generate.ts [--dir /tmp/vigil-bench-search] [--segments 2000000]
 *        [--sensors 200] [--days 14] [--batch-size 5]
 *
 * Each round every sensor uploads `batch-size` events and the store's clock moves past the segment
 * window, so each upload opens new segments (as Carbon Black 6.x opens a segment per upload).
 * With the simulator's activity, 5 events per upload give about 3 events per segment: 2M segments
 * hold about 6M events. The sensor clocks follow the server clock over `days`, ending at the time
 * of generation (recorded in manifest.json, which the runner reads for its time-restricted query).
 *
 * With `--store postgres` the events go through the PostgreSQL event store (PostgresEventStore.commit)
 * into a database of their own (postgres-dataset.ts): on an embedded PostgreSQL whose cluster is kept
 * in the dir (default /tmp/vigil-bench-search-pg), or on the server `--database-url` names. The same
 * parameters give the same segments, processes and events on either store.
 *
 * An existing dir whose manifest has the same parameters is reused; delete it to regenerate.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/config/load.js';
import type { SqlDatabase } from '../../src/db/database.js';
import { PostgresDatabase } from '../../src/db/dialects/postgres.js';
import { migrate } from '../../src/db/migrate.js';
import { postgresMigrations } from '../../src/db/migrations/postgres.js';
import { openDatabase } from '../../src/db/open.js';
import { FilterGate } from '../../src/ingest/ingress-gate.js';
import { normalizeEvent } from '../../src/ingest/normalize.js';
import { EventPreparer } from '../../src/ingest/prepare.js';
import { SqlBinariesStore } from '../../src/modules/binaries/binaries.store.js';
import type { EventStore, IngestBatch, SegmentRules } from '../../src/ingest/event-store.js';
import { PostgresEventStore } from '../../src/modules/processes/event-store.postgres.js';
import { SqliteEventStore } from '../../src/modules/processes/event-store.sqlite.js';
import { BinaryCatalog } from '../../src/sensor/binaries.js';
import { Endpoint } from '../../src/sensor/endpoint.js';
import { openDatasetServer, type DatasetServer } from './postgres-dataset.js';

export interface Manifest {
  /** The target; storedSegments is what the last round reached. */
  segments: number;
  storedSegments: number;
  sensors: number;
  days: number;
  batchSize: number;
  startMs: number;
  endMs: number;
  events: number;
  processes: number;
  binaries: number;
  generationSeconds: number;
}

export const DEFAULT_DIR = '/tmp/vigil-bench-search';
export const DEFAULT_POSTGRES_DIR = '/tmp/vigil-bench-search-pg';

/** Where the dataset is written: the embedded store in the dir, or a PostgreSQL dataset database. */
export type DatasetStore = { kind: 'embedded' } | { kind: 'postgres'; server: DatasetServer };

interface OpenedStore {
  db: SqlDatabase;
  events: EventStore;
}

async function openStore(dir: string, store: DatasetStore, rules: SegmentRules, clock: () => number): Promise<OpenedStore> {
  if (store.kind === 'embedded') {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const db = await openDatabase(loadConfig({ dataDir: dir }));
    return { db, events: new SqliteEventStore(db, rules, clock) };
  }
  // The cluster lives in the dir: only the manifest goes, and the dataset's database is made anew.
  rmSync(join(dir, 'manifest.json'), { force: true });
  await store.server.recreateDataset();
  const db = PostgresDatabase.open(store.server.datasetUrl, { poolSize: 4 });
  await migrate(db, postgresMigrations);
  return { db, events: new PostgresEventStore(db, rules, clock) };
}

/** Segments stored so far. */
async function countSegments(db: SqlDatabase): Promise<number> {
  return Number((await db.get<{ n: number | string }>('SELECT count(*) AS n FROM segments'))!.n);
}

export function readManifest(dir: string): Manifest | undefined {
  const file = join(dir, 'manifest.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Manifest) : undefined;
}

const GROUPS = [
  { id: 1, name: 'Default Group' },
  { id: 2, name: 'Servers' },
  { id: 3, name: 'Macs' },
];

function groupOf(endpoint: Endpoint): number {
  if (endpoint.os === 'osx') return 3;
  return endpoint.host.profile.hostType === 'workstation' ? 1 : 2;
}

export async function generate(
  dir: string,
  options: Omit<Manifest, 'storedSegments' | 'startMs' | 'endMs' | 'events' | 'processes' | 'binaries' | 'generationSeconds'>,
  target: DatasetStore = { kind: 'embedded' },
): Promise<Manifest> {
  const existing = readManifest(dir);
  if (existing && existing.segments === options.segments && existing.sensors === options.sensors &&
      existing.days === options.days && existing.batchSize === options.batchSize) {
    return existing;
  }
  const began = Date.now();
  // The rounds needed for the target at ~3.1 events per segment, spread over `days`.
  const endMs = began;
  const startMs = endMs - options.days * 86_400_000;
  const rounds = Math.ceil((options.segments * 3.1) / (options.sensors * options.batchSize));
  const roundMs = Math.floor((endMs - startMs) / rounds);
  let serverMs = startMs;
  const { db, events: store } = await openStore(dir, target, { maxEventsPerSegment: 10_000, windowMs: roundMs - 1 }, () => serverMs);
  for (const group of GROUPS.slice(1)) await db.run('INSERT INTO sensor_groups (id, name, site_id) VALUES (?, ?, 1)', [group.id, group.name]);

  const catalog = new BinaryCatalog('1');
  const endpoints = Array.from({ length: options.sensors }, (_, index) => new Endpoint({ seed: '1', index, startMs, binaries: catalog }));
  const sensors = [];
  for (const endpoint of endpoints) {
    const groupId = groupOf(endpoint);
    const { id } = (await db.get<{ id: number | string }>(
      `INSERT INTO sensors (group_id, secret_hash, os_type, host_type, computer_name, build_version_string, registration_ms)
       VALUES (?, 'x', ?, ?, ?, ?, ?) RETURNING id`,
      [groupId, endpoint.os, endpoint.host.profile.hostType, endpoint.hostname, endpoint.host.profile.buildVersion, startMs],
    ))!;
    sensors.push({ id: Number(id), groupId, hostname: endpoint.hostname, hostType: endpoint.host.profile.hostType, osType: endpoint.os });
  }
  const binaries = new SqlBinariesStore(db);
  const preparer = new EventPreparer(new FilterGate());
  const sequences = new Array<number>(options.sensors).fill(0);
  const seenBinaries = new Set<string>();
  let events = 0;
  let segments = 0;
  let counted = { round: 0, segments: 0 };
  for (let round = 0; segments < options.segments; round++) {
    const batches: IngestBatch[] = [];
    for (const [i, endpoint] of endpoints.entries()) {
      endpoint.syncClock(serverMs);
      const taken = endpoint.take(options.batchSize).map(normalizeEvent);
      events += taken.length;
      const sensor = sensors[i]!;
      for (const binary of endpoint.takeBinaries()) {
        if (seenBinaries.has(binary.md5)) continue;
        seenBinaries.add(binary.md5);
        await binaries.record(binary.metadata, undefined, sensor.id, serverMs);
      }
      if (taken.length === 0) continue;
      const prepared = preparer.prepare({ sensorId: sensor.id, groupId: sensor.groupId, osType: sensor.osType }, taken);
      batches.push({ sensor, sequence: ++sequences[i]!, ...prepared, counters: new Map() });
    }
    await store.commit(batches);
    serverMs += roundMs;
    // Counting is a scan: every 50 rounds, then every round once the target is expected within reach.
    const expected = (counted.segments * (round + 1)) / (counted.round + 1);
    if (round % 50 === 0 || expected >= options.segments * 0.97) {
      segments = await countSegments(db);
      counted = { round, segments };
    }
    if (round % 100 === 0) process.stderr.write(`\rround ${round}: ${segments} segments, ${events} events, ${Math.round((Date.now() - began) / 1000)} s`);
  }
  segments = await countSegments(db);
  // As after a bulk load in production: planner statistics, and visibility for index-only scans.
  if (target.kind === 'postgres') await db.exec('VACUUM ANALYZE');
  const processes = Number((await db.get<{ n: number | string }>('SELECT count(*) AS n FROM processes'))!.n);
  await db.close();
  const manifest: Manifest = {
    ...options, startMs, endMs: serverMs, storedSegments: segments, events, processes, binaries: seenBinaries.size,
    generationSeconds: Math.round((Date.now() - began) / 1000),
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  process.stderr.write('\n');
  return manifest;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      dir: { type: 'string' },
      store: { type: 'string', default: 'embedded' },
      'database-url': { type: 'string' },
      segments: { type: 'string', default: '2000000' },
      sensors: { type: 'string', default: '200' },
      days: { type: 'string', default: '14' },
      'batch-size': { type: 'string', default: '5' },
    },
  });
  const postgres = values.store === 'postgres';
  const dir = values.dir ?? (postgres ? DEFAULT_POSTGRES_DIR : DEFAULT_DIR);
  const server = postgres ? await openDatasetServer(dir, values['database-url']) : undefined;
  try {
    const manifest = await generate(dir, {
      segments: Number(values.segments), sensors: Number(values.sensors), days: Number(values.days), batchSize: Number(values['batch-size']),
    }, server ? { kind: 'postgres', server } : { kind: 'embedded' });
    console.log(JSON.stringify(manifest));
  } finally {
    await server?.stop();
  }
}
