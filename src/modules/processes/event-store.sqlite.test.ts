/**
 * The segmenting rules of the embedded event store on a real SQLite file, with a clock the test
 * moves: a segment closes when full or when its window passes, ids stay unique, and a store
 * opened again continues where the last one stopped.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { tempDir } from '../../../test/support/temp.js';
import { processEvents } from '../../../test/support/sensors.js';
import { SqliteDatabase } from '../../db/dialects/sqlite.js';
import { migrate } from '../../db/migrate.js';
import { sqliteMigrations } from '../../db/migrations/sqlite.js';
import { FilterGate } from '../../ingest/ingress-gate.js';
import { EventPreparer } from '../../ingest/prepare.js';
import type { SensorEvent } from '../../ingest/event.schemas.js';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import { SqlSensorsStore } from '../sensors/sensors.store.js';
import type { IngestBatch } from '../../ingest/event-store.js';
import { SqliteEventStore } from './event-store.sqlite.js';

const SENSOR: SensorIdentity = { id: 1, groupId: 1, hostname: 'host', hostType: 'server', osType: 'linux' };
const T0 = 1_763_000_000_000;

/** A batch as the pipeline hands it to the store. */
function batch(sequence: number, events: readonly SensorEvent[]): IngestBatch {
  const prepared = new EventPreparer(new FilterGate()).prepare({ sensorId: SENSOR.id, groupId: SENSOR.groupId, osType: SENSOR.osType }, events);
  return { sensor: SENSOR, sequence, ...prepared, counters: new Map() };
}

/** The sensor whose last committed sequence the store keeps. */
async function registerSensorRow(db: SqliteDatabase): Promise<void> {
  const sensor = await new SqlSensorsStore(db).register({
    groupId: 1, secretHash: 'x', osType: 'linux', hostType: 'server', registrationMs: T0, computerName: 'host',
    computerDnsName: '', computerSid: '', osEnvironmentDisplayString: '', buildVersionString: '006.001.002.71109',
    buildId: 0, bootId: '1', networkAdapters: '', physicalMemorySize: 0, systemvolumeTotalSize: 0, systemvolumeFreeSize: 0,
  });
  assert.equal(sensor.id, SENSOR.id);
}

describe('SQLite event store segments', () => {
  const dir = tempDir('vigil-events-');
  after(() => rmSync(dir, { recursive: true, force: true }));
  let opened = 0;

  async function freshStore(clock: { now: number }, rules = { maxEventsPerSegment: 3, windowMs: 60_000 }) {
    const db = SqliteDatabase.open(join(dir, `events-${opened++}.db`));
    await migrate(db, sqliteMigrations);
    return { db, store: new SqliteEventStore(db, rules, () => clock.now) };
  }

  const segmentsOf = (db: SqliteDatabase, pid: number) =>
    db.all<{ segment_id: number; event_count: number }>(
      'SELECT s.segment_id, s.event_count FROM segments s JOIN processes p ON p.id = s.process_id WHERE p.pid = ? ORDER BY s.segment_id',
      [pid],
    );

  it('splits a batch at the event limit with distinct segment ids, even within one millisecond', async () => {
    const clock = { now: T0 };
    const { db, store } = await freshStore(clock);
    const events = processEvents(10, T0 - 1000);
    await store.commit([batch(1, events)]);
    const segments = await segmentsOf(db, 10);
    assert.deepEqual(segments.map((s) => s.event_count), [3, 3, 2]);
    assert.deepEqual(segments.map((s) => s.segment_id), [T0, T0 + 1, T0 + 2]);
    await db.close();
  });

  it('opens a new segment when the window of the open one has passed', async () => {
    const clock = { now: T0 };
    const { db, store } = await freshStore(clock, { maxEventsPerSegment: 100, windowMs: 60_000 });
    const [start, filemod, regmod] = processEvents(20, T0 - 1000) as [SensorEvent, SensorEvent, SensorEvent];
    await store.commit([batch(1, [start, filemod])]);
    clock.now = T0 + 59_999;
    await store.commit([batch(2, [regmod])]);
    clock.now = T0 + 60_000;
    await store.commit([batch(3, [{ ...regmod, ts: regmod.ts + 1 }])]);
    const segments = await segmentsOf(db, 20);
    assert.deepEqual(segments, [{ segment_id: T0, event_count: 3 }, { segment_id: T0 + 60_000, event_count: 1 }]);
    await db.close();
  });

  it('fills in a process seen first through other events when its start arrives', async () => {
    const clock = { now: T0 };
    const { db, store } = await freshStore(clock, { maxEventsPerSegment: 100, windowMs: 60_000 });
    const [start, ...rest] = processEvents(30, T0 - 1000);
    await store.commit([batch(1, rest)]);
    assert.equal((await db.get<{ process_name: string }>('SELECT process_name FROM processes WHERE pid = 30'))?.process_name, '');
    await store.commit([batch(2, [start!])]);
    const row = await db.get<{ process_name: string; cmdline: string; n: number }>(
      'SELECT process_name, cmdline, (SELECT COUNT(*) FROM processes) AS n FROM processes WHERE pid = 30',
    );
    assert.deepEqual(row, { process_name: 'cmd.exe', cmdline: 'cmd.exe /c whoami', n: 1 });
    await db.close();
  });

  it('continues the open segment after a restart without reusing chunk numbers', async () => {
    const clock = { now: T0 };
    const file = join(dir, 'restart.db');
    const rules = { maxEventsPerSegment: 100, windowMs: 60_000 };
    const events = processEvents(40, T0 - 1000);
    let db = SqliteDatabase.open(file);
    await migrate(db, sqliteMigrations);
    await registerSensorRow(db);
    await new SqliteEventStore(db, rules, () => clock.now)
      .commit([batch(1, events.slice(0, 4))]);
    await db.close();
    db = SqliteDatabase.open(file);
    const reopened = new SqliteEventStore(db, rules, () => clock.now);
    const [duplicate] = await reopened.commit([batch(1, events.slice(0, 4))]);
    assert.equal(duplicate?.duplicate, true, 'the last sequence survives the restart');
    await reopened.commit([batch(2, events.slice(4))]);
    assert.deepEqual(await segmentsOf(db, 40), [{ segment_id: T0, event_count: 8 }]);
    const chunks = await db.all<{ chunk: number }>('SELECT chunk FROM segment_chunks ORDER BY chunk');
    assert.deepEqual(chunks.map((c) => c.chunk), [0, 1]);
    await db.close();
  });

  it('posts every term again when a commit is retried after a rollback, as a commit that never failed does', async () => {
    const rules = { maxEventsPerSegment: 100, windowMs: 60_000 };
    const events = processEvents(50, T0 - 1000);
    const postingsOf = (db: SqliteDatabase) =>
      db.all('SELECT t.field, t.value FROM event_postings p JOIN event_terms t ON t.id = p.term_id ORDER BY 1, 2');
    const clean = await freshStore({ now: T0 }, rules);
    await clean.store.commit([batch(1, events.slice(0, 2))]);
    await clean.store.commit([batch(2, events.slice(2, 5))]);
    await clean.store.commit([batch(3, events.slice(5))]);

    const retried = await freshStore({ now: T0 }, rules);
    await retried.store.commit([batch(1, events.slice(0, 2))]);
    // The second commit (the process still running) fails at its end, after its segment took its postings.
    await retried.db.exec(`CREATE TABLE fail_next (x);
      CREATE TRIGGER fail_partition_count BEFORE UPDATE ON event_partitions WHEN EXISTS (SELECT 1 FROM fail_next)
      BEGIN SELECT RAISE(ABORT, 'injected failure'); END;
      INSERT INTO fail_next VALUES (1);`);
    await assert.rejects(retried.store.commit([batch(2, events.slice(2, 5))]), /injected failure/);
    await retried.db.exec('DELETE FROM fail_next');
    await retried.store.commit([batch(2, events.slice(2, 5))]);
    await retried.store.commit([batch(3, events.slice(5))]);

    assert.deepEqual(await postingsOf(retried.db), await postingsOf(clean.db));
    assert.ok((await postingsOf(clean.db)).length >= 8, 'the events carry terms');
    await clean.db.close();
    await retried.db.close();
  });

  it('counts segments per process and per host, also for a process read back after a restart', async () => {
    const clock = { now: T0 };
    const file = join(dir, 'counts.db');
    const rules = { maxEventsPerSegment: 3, windowMs: 60_000 };
    let db = SqliteDatabase.open(file);
    await migrate(db, sqliteMigrations);
    await registerSensorRow(db);
    const [start, ...rest] = processEvents(60, T0 - 1000);
    await new SqliteEventStore(db, rules, () => clock.now).commit([batch(1, [start!, ...rest.slice(0, 4)]), batch(2, processEvents(70, T0 - 500))]);
    await db.close();
    db = SqliteDatabase.open(file);
    clock.now = T0 + 60_000;
    await new SqliteEventStore(db, rules, () => clock.now).commit([batch(3, rest.slice(4))]);
    const perProcess = await db.all('SELECT p.pid, c.segments FROM process_segment_counts c JOIN processes p ON p.id = c.process_row ORDER BY p.pid');
    const segments = await db.all('SELECT p.pid, count(*) AS segments FROM segments s JOIN processes p ON p.id = s.process_id GROUP BY p.pid ORDER BY p.pid');
    assert.deepEqual(perProcess, segments);
    assert.deepEqual(perProcess.map((row) => (row as { segments: number }).segments), [3, 3]);
    const perHost = await db.all('SELECT sensor_id, group_id, hostname, host_type, os_type, segments FROM host_segment_counts');
    assert.deepEqual(perHost, [{ sensor_id: 1, group_id: 1, hostname: 'host', host_type: 'server', os_type: 'linux', segments: 6 }]);
    await db.close();
  });
});
