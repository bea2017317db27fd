/**
 * The migrations that give tags and tagged events their sensor (SQLite 21, PostgreSQL 3) on a
 * store that already holds some: a tag gets its segment's sensor, on PostgreSQL also a segment
 * of an unmounted (detached) partition; a tag of a segment that is gone goes (PostgreSQL, where
 * the sensor is in the key) or keeps 0 (SQLite); a tagged event gets the sensor its process id
 * packs, 0 for a note.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { registerSensors } from '../../../test/support/event-stores.js';
import { dropTestDatabase, freshTestDatabase } from '../../../test/support/postgres.js';
import { processEvents } from '../../../test/support/sensors.js';
import { tempDir } from '../../../test/support/temp.js';
import { SENSORS } from '../../modules/processes/event-store.contract.js';
import { processId } from '../../domain/process-id.js';
import type { EventStore } from '../../ingest/event-store.js';
import { FilterGate } from '../../ingest/ingress-gate.js';
import { EventPreparer } from '../../ingest/prepare.js';
import { PostgresPartitions } from '../../modules/partitions/partitions.postgres.js';
import { PostgresEventStore } from '../../modules/processes/event-store.postgres.js';
import { SqliteEventStore } from '../../modules/processes/event-store.sqlite.js';
import type { SqlDatabase } from '../database.js';
import { PostgresDatabase } from '../dialects/postgres.js';
import { SqliteDatabase } from '../dialects/sqlite.js';
import { migrate } from '../migrate.js';
import { postgresMigrations } from './postgres.js';
import { sqliteMigrations } from './sqlite.js';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const RULES = { maxEventsPerSegment: 100, windowMs: 3_600_000 };
const GONE = 999_999_999;

async function ingest(events: EventStore, sensorIndex: number, pid: number): Promise<void> {
  const sensor = SENSORS[sensorIndex]!;
  const prepared = new EventPreparer(new FilterGate()).prepare({ sensorId: sensor.id, groupId: 1, osType: sensor.osType }, processEvents(pid, T0));
  await events.commit([{ sensor, sequence: pid, ...prepared, counters: new Map() }]);
}

async function segmentOf(db: SqlDatabase, pid: number, table = 'segments'): Promise<number> {
  return (await db.get<{ id: number }>(`SELECT s.id FROM ${table} s JOIN processes p ON p.id = s.process_id WHERE p.pid = ?`, [pid]))!.id;
}

/** Tags segments the old way (no sensor), one of them gone, and tags two events and a note. */
async function tagTheOldWay(db: SqlDatabase, segments: number[]): Promise<void> {
  const watchlist = (await db.get<{ id: number }>(
    `INSERT INTO watchlists (name, search_query, index_type, enabled, readonly, group_id, from_alliance, date_added_ms)
     VALUES ('w', 'q=x', 'events', 1, 0, -1, 0, 0) RETURNING id`,
  ))!.id;
  for (const row of [...segments, GONE]) await db.run('INSERT INTO watchlist_process_hits (watchlist_id, segment_row, hit_ms) VALUES (?, ?, 0)', [watchlist, row]);
  const guids = [processId({ sensorId: 2, pid: 100, startMs: T0 }), processId({ sensorId: 0xab, pid: 1, startMs: T0 }).toUpperCase(), ''];
  for (const guid of guids) await db.run('INSERT INTO tagged_events (investigation_id, process_guid, tagged_ms) VALUES (1, ?, 0)', [guid]);
}

/**
 * Ingests with today's event store into an older schema: the store also writes a column a later
 * migration adds (when a chunk was written, the forwarder's: SQLite 22, PostgreSQL 5), so the
 * column is lent to the older schema while the work runs and taken back before migrating on.
 */
async function withLaterChunkColumn(db: SqlDatabase, table: string, type: string, work: () => Promise<void>): Promise<void> {
  await db.run(`ALTER TABLE ${table} ADD COLUMN written_ms ${type}`);
  await work();
  await db.run(`ALTER TABLE ${table} DROP COLUMN written_ms`);
}

/** The embedded event store also keeps per-term counts (SQLite 24), lent likewise. */
async function withLaterTermCounts(db: SqlDatabase, work: () => Promise<void>): Promise<void> {
  await db.run('CREATE TABLE term_segment_counts (term_id INTEGER PRIMARY KEY, segments INTEGER NOT NULL)');
  await work();
  await db.run('DROP TABLE term_segment_counts');
}

/**
 * Today's sensor and event stores read and write sensors' upload sequences in a table of their own
 * (SQLite 25, PostgreSQL 10), lent likewise; the older schema's column stays at 0 meanwhile.
 */
async function withLaterSequences(db: SqlDatabase, work: () => Promise<void>): Promise<void> {
  await db.run('CREATE TABLE sensor_sequences (sensor_id BIGINT PRIMARY KEY, last_sequence BIGINT NOT NULL)');
  await work();
  await db.run('DROP TABLE sensor_sequences');
}

/**
 * Registers with today's sensors store into an older schema: it also records each registration in
 * a table a later migration adds (sensor_state_changes, SQLite 23, PostgreSQL 8), lent likewise.
 */
async function registerWithLaterHistory(db: SqlDatabase, id: string): Promise<void> {
  await db.run(`CREATE TABLE sensor_state_changes (id ${id} PRIMARY KEY, sensor_id BIGINT NOT NULL, changed_ms BIGINT NOT NULL, state TEXT NOT NULL)`);
  await registerSensors(db);
  await db.run('DROP TABLE sensor_state_changes');
}

const read = async (db: SqlDatabase) => ({
  hits: await db.all<{ segment_row: number; sensor_id: number }>('SELECT segment_row, sensor_id FROM watchlist_process_hits ORDER BY segment_row'),
  tagged: (await db.all<{ sensor_id: number }>('SELECT sensor_id FROM tagged_events ORDER BY id')).map((r) => Number(r.sensor_id)),
});

describe('sqlite: migration 21', () => {
  const dir = tempDir('vigil-tag-sensors-');
  const db = SqliteDatabase.open(join(dir, 'store.db'));
  after(() => db.close());

  it('gives each tag its segment\'s sensor and each tagged event its process\'s', async () => {
    await migrate(db, sqliteMigrations.filter((m) => m.version < 21));
    await withLaterSequences(db, async () => {
      await registerWithLaterHistory(db, 'INTEGER');
      await withLaterTermCounts(db, () => withLaterChunkColumn(db, 'segment_chunks', 'INTEGER', () => ingest(new SqliteEventStore(db, RULES, () => T0), 1, 100)));
    });
    const segment = await segmentOf(db, 100);
    await tagTheOldWay(db, [segment]);
    await migrate(db, sqliteMigrations);
    assert.deepEqual(await read(db), {
      hits: [{ segment_row: segment, sensor_id: 2 }, { segment_row: GONE, sensor_id: 0 }],
      tagged: [2, 0xab, 0],
    });
  });
});

describe('postgres: migration 3', () => {
  let name = '';
  let db: PostgresDatabase | undefined;
  after(async () => {
    await db?.close();
    if (name) await dropTestDatabase(name);
  });

  it('gives each tag its segment\'s sensor, also in an unmounted partition, drops tags of no segment, and keys them by sensor', async () => {
    const fresh = await freshTestDatabase('blank', async () => undefined);
    name = fresh.name;
    db = PostgresDatabase.open(fresh.url, { poolSize: 2 });
    await migrate(db, postgresMigrations.filter((m) => m.version < 3));
    const clock = { now: T0 };
    const events = new PostgresEventStore(db, RULES, () => clock.now);
    const partitions = new PostgresPartitions(db);
    let warm = '';
    const upgraded = db;
    await withLaterSequences(upgraded, async () => {
      await registerWithLaterHistory(upgraded, 'BIGINT GENERATED BY DEFAULT AS IDENTITY');
      await withLaterChunkColumn(upgraded, 'event_chunks', 'BIGINT', async () => {
        await ingest(events, 1, 100);
        ({ name: warm } = (await partitions.partition({ op: 'rollover', nowMs: T0 + 1000 })) as { name: string });
        clock.now = T0 + 2000;
        await ingest(events, 0, 200);
      });
    });
    const [older, newer] = [await segmentOf(db, 100), await segmentOf(db, 200)];
    await partitions.partition({ op: 'mount', name: warm, mounted: false });
    await tagTheOldWay(db, [older, newer]);
    await migrate(db, postgresMigrations);
    assert.deepEqual(await read(db), {
      hits: [{ segment_row: older, sensor_id: 2 }, { segment_row: newer, sensor_id: 1 }].sort((a, b) => a.segment_row - b.segment_row),
      tagged: [2, 0xab, 0],
    });
  });
});
