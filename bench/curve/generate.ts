/**
 * bench/curve/generate: a production-sized embedded store, grown in legs — the simulator's activity
 * from 1,000 endpoints over 30 days, written through the real ingest preparation and the real event
 * store's commit path (EventPreparer + SqliteEventStore.commit, several uploads per commit), with
 * the 3-day partitions of a 30-day retention rolled over as the server clock passes them.
 *
 *   node --import tsx bench/curve/generate.ts --events 5M [--total 50M] [--dir /tmp/vigil-curve/data]
 *        [--sensors 1000] [--days 30] [--upload 100] [--segment-hours 12] [--uploads-per-commit 100]
 *
 * The timeline is laid out for `--total` events: round r of uploads (every sensor sends `upload`
 * events) happens at startMs + r × roundMs, so a store stopped at 5M of a 50M total holds the
 * first tenth of the 30 days, as a server three days into its life would. A segment takes a
 * process's events for `segment-hours` of server time, so short-lived processes have one segment
 * of tens of events and long-lived ones (services, shells) a segment per window, of up to
 * thousands. Each run continues the dir's store from where the last one stopped: the endpoints
 * are deterministic, so they are replayed (generated and dropped) up to the manifest's round.
 * Prints its own rate per leg; manifest.json keeps every leg's figures.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/config/load.js';
import { openDatabase } from '../../src/db/open.js';
import { FilterGate } from '../../src/ingest/ingress-gate.js';
import { normalizeEvent } from '../../src/ingest/normalize.js';
import { EventPreparer } from '../../src/ingest/prepare.js';
import type { IngestBatch } from '../../src/ingest/event-store.js';
import { SqlBinariesStore } from '../../src/modules/binaries/binaries.store.js';
import { SqlitePartitionWriter } from '../../src/modules/partitions/partition-writer.sqlite.js';
import { SqliteEventStore } from '../../src/modules/processes/event-store.sqlite.js';
import { BinaryCatalog } from '../../src/sensor/binaries.js';
import { Endpoint } from '../../src/sensor/endpoint.js';
import type { SensorIdentity } from '../../src/domain/sensor-identity.js';

export const CURVE_DIR = '/tmp/vigil-curve/data';
const DAY_MS = 86_400_000;
const PARTITION_DAYS = 3;
/** Events over which the commit path's rate is taken at the start of a leg and at its end. */
const RATE_WINDOW = 1_000_000;

export interface Shape {
  total: number;
  sensors: number;
  days: number;
  upload: number;
  segmentHours: number;
}

export interface CommitRate {
  eventsPerS: number;
  cpuUsPerEvent: number;
}

export interface Leg {
  events: number;
  rounds: number;
  seconds: number;
  replaySeconds: number;
  eventsPerS: number;
  /**
   * The event store alone (its commits), over the leg's first and last RATE_WINDOW events: events
   * per second of commit wall time, and µs of process CPU per event (which a shared machine's
   * other load moves less).
   */
  commit: { first: CommitRate; last: CommitRate };
  partitions: number;
  date: string;
}

export interface CurveManifest extends Shape {
  startMs: number;
  roundMs: number;
  rounds: number;
  events: number;
  /** Server clock of the last round written: the "now" of time-restricted searches. */
  endMs: number;
  legs: Leg[];
}

export function parseCount(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([kKmM]?)$/u.exec(text);
  if (!match) throw new Error(`not a count: ${text}`);
  const unit = { '': 1, k: 1e3, K: 1e3, m: 1e6, M: 1e6 }[match[2]!]!;
  return Math.round(Number(match[1]) * unit);
}

export function readCurveManifest(dir: string): CurveManifest | undefined {
  const file = join(dir, 'manifest.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as CurveManifest) : undefined;
}

const GROUP_NAMES = ['Default Group', 'Servers', 'Macs'];

function groupOf(endpoint: Endpoint): number {
  if (endpoint.os === 'osx') return 3;
  return endpoint.host.profile.hostType === 'workstation' ? 1 : 2;
}

function sameShape(a: Shape, b: Shape): boolean {
  return a.total === b.total && a.sensors === b.sensors && a.days === b.days && a.upload === b.upload && a.segmentHours === b.segmentHours;
}

/** Grows the store in `dir` to at least `events` events (whole rounds); returns the manifest. */
export async function grow(dir: string, shape: Shape, events: number, uploadsPerCommit: number): Promise<CurveManifest> {
  const began = performance.now();
  let manifest = readCurveManifest(dir);
  if (manifest && !sameShape(manifest, shape)) throw new Error(`${dir} holds another shape (${JSON.stringify(manifest)}): use another --dir`);
  mkdirSync(dir, { recursive: true });
  const eventsPerRound = shape.sensors * shape.upload;
  const totalRounds = Math.ceil(shape.total / eventsPerRound);
  if (!manifest) {
    const endMs = Date.now();
    const startMs = endMs - shape.days * DAY_MS;
    manifest = { ...shape, startMs, roundMs: Math.floor((shape.days * DAY_MS) / totalRounds), rounds: 0, events: 0, endMs: startMs, legs: [] };
  }
  const targetRounds = Math.min(totalRounds, Math.ceil(events / eventsPerRound));
  if (targetRounds <= manifest.rounds) return manifest;

  const db = await openDatabase(loadConfig({ dataDir: dir }));
  const { startMs, roundMs } = manifest;
  let serverMs = startMs + manifest.rounds * roundMs;
  const store = new SqliteEventStore(db, { maxEventsPerSegment: 10_000, windowMs: shape.segmentHours * 3_600_000 }, () => serverMs);
  const partitions = new SqlitePartitionWriter(db.connection, store);
  const catalog = new BinaryCatalog('curve');
  const endpoints = Array.from({ length: shape.sensors }, (_, index) => new Endpoint({ seed: 'curve', index, startMs, binaries: catalog }));
  const sensors = await registerSensors(db, endpoints, startMs, manifest.rounds === 0);

  // Replay: the endpoints' state (running processes, clocks, binaries announced) at the manifest's round.
  const sequences = new Array<number>(shape.sensors).fill(0);
  for (let round = 0; round < manifest.rounds; round++) {
    const roundMs0 = startMs + round * roundMs;
    for (const [i, endpoint] of endpoints.entries()) {
      endpoint.syncClock(roundMs0);
      if (endpoint.take(shape.upload).length > 0) sequences[i]!++;
      endpoint.takeBinaries();
    }
  }
  const replaySeconds = (performance.now() - began) / 1000;

  const binaries = new SqlBinariesStore(db);
  const preparer = new EventPreparer(new FilterGate());
  const writeBegan = performance.now();
  const commitTimes: { events: number; ms: number; cpuMs: number }[] = [];
  let pending: IngestBatch[] = [];
  let pendingEvents = 0;
  const flush = async () => {
    if (pending.length === 0) return;
    const t = performance.now();
    const cpu = process.cpuUsage();
    await store.commit(pending);
    const used = process.cpuUsage(cpu);
    commitTimes.push({ events: pendingEvents, ms: performance.now() - t, cpuMs: (used.user + used.system) / 1000 });
    pending = [];
    pendingEvents = 0;
  };
  const legStartRound = manifest.rounds;
  let legEvents = 0;
  for (let round = manifest.rounds; round < targetRounds; round++) {
    serverMs = startMs + round * roundMs;
    const partition = Math.floor((serverMs - startMs) / (PARTITION_DAYS * DAY_MS));
    if (round > 0 && partition > Math.floor((serverMs - roundMs - startMs) / (PARTITION_DAYS * DAY_MS))) {
      await flush();
      db.connection.transaction(() => partitions.rollover(serverMs))();
    }
    for (const [i, endpoint] of endpoints.entries()) {
      endpoint.syncClock(serverMs);
      const taken = endpoint.take(shape.upload).map(normalizeEvent);
      const sensor = sensors[i]!;
      for (const binary of endpoint.takeBinaries()) await binaries.record(binary.metadata, undefined, sensor.id, serverMs);
      if (taken.length === 0) continue;
      const prepared = preparer.prepare({ sensorId: sensor.id, groupId: sensor.groupId, osType: sensor.osType }, taken);
      pending.push({ sensor, sequence: ++sequences[i]!, ...prepared, counters: new Map() });
      pendingEvents += taken.length;
      legEvents += taken.length;
      if (pending.length >= uploadsPerCommit) await flush();
    }
    await flush();
    if (round % 10 === 0) {
      const seconds = (performance.now() - writeBegan) / 1000;
      process.stderr.write(`\rround ${round + 1}/${totalRounds}: ${manifest.events + legEvents} events, ${Math.round(legEvents / seconds)} events/s  `);
    }
  }
  const seconds = (performance.now() - writeBegan) / 1000;
  const partitionCount = Number(db.connection.prepare("SELECT count(*) FROM event_partitions WHERE state IN ('hot', 'warm')").pluck().get());
  await store.close();
  process.stderr.write('\n');
  manifest = {
    ...manifest, rounds: targetRounds, events: manifest.events + legEvents, endMs: serverMs,
    legs: [...manifest.legs, {
      events: manifest.events + legEvents, rounds: targetRounds - legStartRound, seconds: Math.round(seconds), replaySeconds: Math.round(replaySeconds),
      eventsPerS: Math.round(legEvents / seconds),
      commit: { first: windowRate(commitTimes), last: windowRate([...commitTimes].reverse()) },
      partitions: partitionCount, date: new Date().toISOString(),
    }],
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return manifest;
}

/** The commit path's rate over the first RATE_WINDOW events of `times`. */
function windowRate(times: { events: number; ms: number; cpuMs: number }[]): CommitRate {
  let events = 0;
  let ms = 0;
  let cpuMs = 0;
  for (const time of times) {
    events += time.events;
    ms += time.ms;
    cpuMs += time.cpuMs;
    if (events >= RATE_WINDOW) break;
  }
  return { eventsPerS: Math.round((events * 1000) / ms), cpuUsPerEvent: Math.round((cpuMs * 10_000) / events) / 10 };
}

/** The fleet's sensor rows (made on the first leg, read back on later ones). */
async function registerSensors(db: Awaited<ReturnType<typeof openDatabase>>, endpoints: Endpoint[], startMs: number, create: boolean): Promise<SensorIdentity[]> {
  if (create) {
    // The first partition starts with the timeline, not when the schema was made.
    await db.run("UPDATE event_partitions SET start_ms = ? WHERE state = 'hot'", [startMs]);
    for (const [index, name] of GROUP_NAMES.entries()) {
      if (index > 0) await db.run('INSERT INTO sensor_groups (id, name, site_id) VALUES (?, ?, 1)', [index + 1, name]);
    }
  }
  const sensors: SensorIdentity[] = [];
  for (const [index, endpoint] of endpoints.entries()) {
    const groupId = groupOf(endpoint);
    const id = index + 1;
    if (create) {
      await db.run(
        `INSERT INTO sensors (id, group_id, secret_hash, os_type, host_type, computer_name, build_version_string, registration_ms)
         VALUES (?, ?, 'x', ?, ?, ?, ?, ?)`,
        [id, groupId, endpoint.os, endpoint.host.profile.hostType, endpoint.hostname, endpoint.host.profile.buildVersion, startMs],
      );
    }
    sensors.push({ id, groupId, hostname: endpoint.hostname, hostType: endpoint.host.profile.hostType, osType: endpoint.os });
  }
  return sensors;
}

export function shapeFromArgs(values: Record<string, string | undefined>): Shape {
  return {
    total: parseCount(values.total ?? '50M'), sensors: Number(values.sensors ?? 1000), days: Number(values.days ?? 30),
    upload: Number(values.upload ?? 100), segmentHours: Number(values['segment-hours'] ?? 12),
  };
}

export const SHAPE_OPTIONS = {
  dir: { type: 'string', default: CURVE_DIR },
  total: { type: 'string', default: '50M' },
  sensors: { type: 'string', default: '1000' },
  days: { type: 'string', default: '30' },
  upload: { type: 'string', default: '100' },
  'segment-hours': { type: 'string', default: '12' },
  'uploads-per-commit': { type: 'string', default: '100' },
} as const;

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { ...SHAPE_OPTIONS, events: { type: 'string' } } });
  if (!values.events) throw new Error('--events N (e.g. 5M) is required');
  const manifest = await grow(values.dir, shapeFromArgs(values), parseCount(values.events), Number(values['uploads-per-commit']));
  console.log(JSON.stringify({ ...manifest, legs: manifest.legs.at(-1) }));
}
