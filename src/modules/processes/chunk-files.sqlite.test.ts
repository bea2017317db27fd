/**
 * Event chunks in partition files, on real SQLite files through the real event store: chunks
 * come back in order also for a segment begun before migration 13 (its first chunks in
 * segment_events), a rolled-back commit leaves its bytes unreferenced without disturbing later
 * ones, and a chunk whose file is gone is left out instead of failing the read.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { processEvents } from '../../../test/support/sensors.js';
import { tempDir } from '../../../test/support/temp.js';
import { SqliteDatabase } from '../../db/dialects/sqlite.js';
import { migrate } from '../../db/migrate.js';
import { sqliteMigrations } from '../../db/migrations/sqlite.js';
import type { SensorEvent } from '../../ingest/event.schemas.js';
import { FilterGate } from '../../ingest/ingress-gate.js';
import { normalizeEvent } from '../../ingest/normalize.js';
import { EventPreparer } from '../../ingest/prepare.js';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import { chunkFilePath } from '../partitions/partition-files.js';
import { readSegmentChunks } from './chunk-files.sqlite.js';
import { decodeChunk } from '../../ingest/event-codec.js';
import type { IngestBatch } from '../../ingest/event-store.js';
import { SqliteEventStore } from './event-store.sqlite.js';

const SENSOR: SensorIdentity = { id: 1, groupId: 1, hostname: 'host', hostType: 'server', osType: 'windows' };
const T0 = 1_763_000_000_000;
const PID = 40;
const RULES = { maxEventsPerSegment: 100, windowMs: 3_600_000 };

/** A batch as the pipeline hands it to the store, its events normalized. */
function batch(sequence: number, events: readonly SensorEvent[]): IngestBatch {
  const prepared = new EventPreparer(new FilterGate()).prepare({ sensorId: SENSOR.id, groupId: SENSOR.groupId, osType: SENSOR.osType }, normalized(events));
  return { sensor: SENSOR, sequence, ...prepared, counters: new Map() };
}

/** The events as stored: normalized, and without the fields normalization left undefined. */
const normalized = (events: readonly SensorEvent[]) =>
  JSON.parse(JSON.stringify(events.map((event) => normalizeEvent(structuredClone(event))))) as SensorEvent[];

describe('event chunks in partition files', () => {
  const dir = tempDir('vigil-chunks-');
  after(() => rmSync(dir, { recursive: true, force: true }));
  let opened = 0;

  async function freshDatabase(): Promise<SqliteDatabase> {
    const dataDir = join(dir, `data-${opened++}`);
    mkdirSync(dataDir);
    const db = SqliteDatabase.open(join(dataDir, 'vigil.db'));
    await migrate(db, sqliteMigrations);
    return db;
  }

  const onlySegment = (db: SqliteDatabase) => db.connection.prepare('SELECT id FROM segments').pluck().get() as number;
  const hotFile = (db: SqliteDatabase) =>
    chunkFilePath(db.connection.name, db.connection.prepare("SELECT id FROM event_partitions WHERE state = 'hot'").pluck().get() as number);
  const eventsOf = (db: SqliteDatabase, segmentRow: number) =>
    readSegmentChunks(db.connection, [segmentRow])[0]!.flatMap((data) => decodeChunk(data, PID, T0));

  it('writes each commit\'s chunks to the hot partition\'s file and reads them back in order', async () => {
    const db = await freshDatabase();
    const events = processEvents(PID, T0);
    const store = new SqliteEventStore(db, RULES, () => T0);
    await store.commit([batch(1, events.slice(0, 3))]);
    await store.commit([batch(2, events.slice(3))]);
    const refs = db.connection.prepare('SELECT chunk, byte_offset, byte_length FROM segment_chunks ORDER BY chunk').all() as
      { chunk: number; byte_offset: number; byte_length: number }[];
    assert.deepEqual(refs.map((r) => r.chunk), [0, 1]);
    assert.equal(refs[1]!.byte_offset, refs[0]!.byte_offset + refs[0]!.byte_length, 'the second commit appended after the first');
    assert.equal(statSync(hotFile(db)).size, refs[1]!.byte_offset + refs[1]!.byte_length);
    assert.deepEqual(eventsOf(db, onlySegment(db)), normalized(events));
    await store.close();
  });

  it('reads a segment begun before the chunk files, its first chunks in segment_events, then continued in a file', async () => {
    const db = await freshDatabase();
    const events = processEvents(PID, T0);
    await new SqliteEventStore(db, RULES, () => T0).commit([batch(1, events.slice(0, 4))]);
    // Make the first chunk what the store wrote before migration 13: a row of segment_events.
    const [ref] = db.connection.prepare('SELECT * FROM segment_chunks').all() as { segment_row: number; chunk: number; event_count: number; byte_offset: number; byte_length: number }[];
    const data = readFileSync(hotFile(db)).subarray(ref!.byte_offset, ref!.byte_offset + ref!.byte_length).toString('utf8');
    db.connection.prepare('INSERT INTO segment_events (segment_row, chunk, event_count, data) VALUES (?, ?, ?, ?)').run(ref!.segment_row, ref!.chunk, ref!.event_count, data);
    db.connection.prepare('DELETE FROM segment_chunks').run();
    rmSync(hotFile(db));

    const restarted = new SqliteEventStore(db, RULES, () => T0 + 1000);
    await restarted.commit([batch(2, events.slice(4))]);
    assert.deepEqual(db.connection.prepare('SELECT chunk FROM segment_chunks').pluck().all(), [1], 'numbering continues after the old rows');
    assert.deepEqual(eventsOf(db, onlySegment(db)), normalized(events));
    await restarted.close();
  });

  it('leaves a rolled-back commit\'s bytes unreferenced and places the next commit\'s chunks after them', async () => {
    const db = await freshDatabase();
    const events = processEvents(PID, T0);
    const store = new SqliteEventStore(db, RULES, () => T0);
    await store.commit([batch(1, events.slice(0, 2))]);
    // Fails the commit's last statement, after its chunks were written to the file.
    db.connection.exec(`CREATE TABLE fail_next (x);
      CREATE TRIGGER fail_partition_count BEFORE UPDATE ON event_partitions WHEN EXISTS (SELECT 1 FROM fail_next)
      BEGIN SELECT RAISE(ABORT, 'injected failure'); END;
      INSERT INTO fail_next VALUES (1);`);
    const sizeBefore = statSync(hotFile(db)).size;
    await assert.rejects(store.commit([batch(2, events.slice(2, 5))]), /injected failure/);
    const orphaned = statSync(hotFile(db)).size - sizeBefore;
    assert.ok(orphaned > 0, 'the failed commit had written its chunks');
    db.connection.exec('DELETE FROM fail_next');

    await store.commit([batch(2, events.slice(2))]);
    const refs = db.connection.prepare('SELECT byte_offset, byte_length FROM segment_chunks ORDER BY chunk').raw().all() as [number, number][];
    assert.equal(refs.length, 2);
    assert.equal(refs[1]![0], sizeBefore + orphaned, 'the retried chunks come after the orphaned bytes');
    assert.deepEqual(eventsOf(db, onlySegment(db)), normalized(events));
    await store.close();
  });

  it('leaves out the chunks of a file that is gone instead of failing the read', async () => {
    const db = await freshDatabase();
    const store = new SqliteEventStore(db, RULES, () => T0);
    await store.commit([batch(1, processEvents(PID, T0))]);
    rmSync(hotFile(db));
    assert.deepEqual(readSegmentChunks(db.connection, [onlySegment(db)]), [[]]);
    await store.close();
  });
});
