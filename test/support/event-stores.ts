/**
 * The event store contract's fixtures (src/modules/processes/event-store.contract.ts): a store on
 * a fresh database of each dialect, with the sensors registered and a reader of what it wrote.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import type { SqlDatabase } from '../../src/db/database.js';
import { SqliteDatabase } from '../../src/db/dialects/sqlite.js';
import { migrate } from '../../src/db/migrate.js';
import { sqliteMigrations } from '../../src/db/migrations/sqlite.js';
import { decodeChunk } from '../../src/ingest/event-codec.js';
import type { IngestBatch } from '../../src/ingest/event-store.js';
import { FilterGate } from '../../src/ingest/ingress-gate.js';
import { EventPreparer } from '../../src/ingest/prepare.js';
import { readSegmentChunks } from '../../src/modules/processes/chunk-files.sqlite.js';
import { SENSORS, type EventStoreFixture, type EventStoreOptions, type EventStoreReader } from '../../src/modules/processes/event-store.contract.js';
import { PostgresEventStore } from '../../src/modules/processes/event-store.postgres.js';
import { SqliteEventStore } from '../../src/modules/processes/event-store.sqlite.js';
import { SqlSensorsStore } from '../../src/modules/sensors/sensors.store.js';
import { freshMigratedPostgres } from './postgres-migrated.js';
import { processEvents } from './sensors.js';
import { tempDir } from './temp.js';

/** A batch of one sensor of SENSORS (by index): one process of `pid`, started at `startMs`, and its events. */
export function processBatch(sensorIndex: number, sequence: number, pid: number, startMs: number): IngestBatch {
  const sensor = SENSORS[sensorIndex]!;
  const prepared = new EventPreparer(new FilterGate()).prepare({ sensorId: sensor.id, groupId: sensor.groupId, osType: sensor.osType }, processEvents(pid, startMs));
  return { sensor, sequence, ...prepared, counters: new Map() };
}

export async function registerSensors(db: SqlDatabase): Promise<void> {
  for (const sensor of SENSORS) {
    await new SqlSensorsStore(db).register({
      groupId: sensor.groupId, secretHash: 'x', osType: sensor.osType, hostType: sensor.hostType, registrationMs: 0,
      computerName: sensor.hostname, computerDnsName: '', computerSid: '', osEnvironmentDisplayString: '',
      buildVersionString: '006.001.002.71109', buildId: 0, bootId: '1', networkAdapters: '', physicalMemorySize: 0,
      systemvolumeTotalSize: 0, systemvolumeFreeSize: 0,
    });
  }
}

/** Reads shared by both dialects: the tables of the same name hold the same rows. */
function commonReads(db: SqlDatabase) {
  return {
    segments: (pid: number) => db.all<{ segment_id: number; event_count: number }>(
      'SELECT s.segment_id, s.event_count FROM segments s JOIN processes p ON p.id = s.process_id WHERE p.pid = ? ORDER BY s.segment_id', [pid]),
    process: (pid: number) => db.get<{ process_name: string; cmdline: string }>('SELECT process_name, cmdline FROM processes WHERE pid = ?', [pid]),
    processCount: async () => (await db.get<{ n: number }>('SELECT count(*) AS n FROM processes'))!.n,
    segmentsPerProcess: () => db.all<{ pid: number; segments: number }>(
      'SELECT p.pid, c.segments FROM process_segment_counts c JOIN processes p ON p.id = c.process_row ORDER BY p.pid, p.sensor_id'),
    segmentsPerHost: () => db.all<{ sensor_id: number; hostname: string; segments: number }>(
      'SELECT sensor_id, hostname, segments FROM host_segment_counts ORDER BY sensor_id'),
    counters: async (sensorId: number) => Object.fromEntries(
      (await db.all<{ name: string; value: number }>('SELECT name, value FROM ingest_counters WHERE sensor_id = ?', [sensorId])).map((r) => [r.name, r.value])),
  };
}

const RULES_OF_TRIGGER = 'injected failure';

export async function sqliteEventStore(options: EventStoreOptions): Promise<EventStoreFixture> {
  const dir = tempDir('vigil-events-');
  const db = SqliteDatabase.open(join(dir, 'store.db'));
  await migrate(db, sqliteMigrations);
  await registerSensors(db);
  const stores: SqliteEventStore[] = [];
  const open = async () => {
    const store = new SqliteEventStore(db, options.rules, options.now);
    stores.push(store);
    return store;
  };
  const segmentRows = async (pid: number) =>
    (await db.all<{ id: number }>('SELECT s.id FROM segments s JOIN processes p ON p.id = s.process_id WHERE p.pid = ? ORDER BY s.segment_id', [pid])).map((r) => r.id);
  const read: EventStoreReader = {
    ...commonReads(db),
    chunkNumbers: async (pid) => (await db.all<{ chunk: number }>(
      'SELECT c.chunk FROM segment_chunks c JOIN segments s ON s.id = c.segment_row JOIN processes p ON p.id = s.process_id WHERE p.pid = ? ORDER BY s.segment_id, c.chunk', [pid])).map((r) => r.chunk),
    events: async (pid) => {
      const process = (await db.get<{ start_ms: number }>('SELECT start_ms FROM processes WHERE pid = ?', [pid]))!;
      return readSegmentChunks(db.connection, await segmentRows(pid)).flat().flatMap((data) => decodeChunk(data, pid, process.start_ms));
    },
    terms: async () => (await db.all<{ term: string }>(
      `SELECT p.pid || '/' || s.segment_id || ' ' || t.field || ':' || t.value AS term FROM event_postings e
         JOIN event_terms t ON t.id = e.term_id JOIN segments s ON s.id = e.segment_row JOIN processes p ON p.id = s.process_id
       UNION ALL SELECT p.pid || ' cmdline:' || t.value FROM process_postings e JOIN event_terms t ON t.id = e.term_id JOIN processes p ON p.id = e.process_row`,
    )).map((r) => r.term).sort(),
  };
  return {
    store: await open(),
    read,
    another: open,
    async failCommits() {
      await db.exec(`CREATE TABLE fail_next (x);
        CREATE TRIGGER fail_sequence BEFORE UPDATE ON sensor_sequences WHEN EXISTS (SELECT 1 FROM fail_next) BEGIN SELECT RAISE(ABORT, '${RULES_OF_TRIGGER}'); END;
        INSERT INTO fail_next VALUES (1);`);
      return () => db.exec('DROP TABLE fail_next; DROP TRIGGER fail_sequence;');
    },
    async close() {
      // Each store closes its chunk file and the one connection they share; the second close finds it closed.
      for (const store of stores) await store.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function postgresEventStore(options: EventStoreOptions): Promise<EventStoreFixture> {
  const db = await freshMigratedPostgres();
  await registerSensors(db);
  const open = async () => new PostgresEventStore(db, options.rules, options.now);
  const read: EventStoreReader = {
    ...commonReads(db),
    chunkNumbers: async (pid) => (await db.all<{ chunk: number }>(
      `SELECT c.chunk FROM event_chunks c JOIN segments s ON s.sensor_id = c.sensor_id AND s.id = c.segment_row AND s.segment_id = c.segment_id
         JOIN processes p ON p.sensor_id = s.sensor_id AND p.id = s.process_id WHERE p.pid = ? ORDER BY s.segment_id, c.chunk`, [pid])).map((r) => r.chunk),
    events: async (pid) => {
      const rows = await db.all<{ data: Buffer; start_ms: number }>(
        `SELECT c.data, p.start_ms FROM event_chunks c JOIN segments s ON s.sensor_id = c.sensor_id AND s.id = c.segment_row AND s.segment_id = c.segment_id
           JOIN processes p ON p.sensor_id = s.sensor_id AND p.id = s.process_id WHERE p.pid = ? ORDER BY s.segment_id, c.chunk`, [pid]);
      return rows.flatMap((row) => decodeChunk(inflateRawSync(row.data), pid, row.start_ms));
    },
    terms: async () => (await db.all<{ term: string }>(
      `SELECT DISTINCT p.pid || '/' || s.segment_id || ' ' || t.term AS term FROM segment_terms st CROSS JOIN unnest(st.terms) AS t(term)
         JOIN segments s ON s.sensor_id = st.sensor_id AND s.id = st.segment_row AND s.segment_id = st.segment_id
         JOIN processes p ON p.sensor_id = s.sensor_id AND p.id = s.process_id
       UNION ALL SELECT p.pid || ' cmdline:' || w FROM processes p CROSS JOIN unnest(p.cmdline_words) AS w`,
    )).map((r) => r.term).sort(),
  };
  return {
    store: await open(),
    read,
    another: open,
    async failCommits() {
      await db.exec(`CREATE TABLE fail_next (x INTEGER);
        CREATE FUNCTION fail_if_asked() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN IF EXISTS (SELECT 1 FROM fail_next) THEN RAISE EXCEPTION '${RULES_OF_TRIGGER}'; END IF; RETURN NEW; END $$;
        CREATE TRIGGER fail_sequence BEFORE UPDATE ON sensor_sequences FOR EACH ROW EXECUTE FUNCTION fail_if_asked();
        INSERT INTO fail_next VALUES (1);`);
      return () => db.exec('DROP TRIGGER fail_sequence ON sensor_sequences; DROP FUNCTION fail_if_asked(); DROP TABLE fail_next;');
    },
    close: () => db.close(),
  };
}
