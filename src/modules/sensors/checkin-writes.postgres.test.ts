/**
 * Check-ins against the PostgreSQL event writer (issue 18): a group of check-ins must not wait for
 * an event commit of the same sensors, nor fail to serialize after it. When the writer kept each
 * sensor's upload sequence on the sensor row, a commit held those rows locked from its first
 * statement to its end and then updated them, so every check-in group that met one waited, failed
 * (SERIALIZABLE), retried, and under ingest lost its heartbeats after twenty attempts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { processBatch, registerSensors } from '../../../test/support/event-stores.js';
import { freshMigratedPostgres } from '../../../test/support/postgres-migrated.js';
import type { PostgresDatabase } from '../../db/dialects/postgres.js';
import { SENSORS } from '../processes/event-store.contract.js';
import { PostgresEventStore } from '../processes/event-store.postgres.js';
import { CheckinWrites } from './checkin-writes.js';
import { SqlSensorsStore } from './sensors.store.js';

const T0 = 1_763_000_000_000;
const RULES = { maxEventsPerSegment: 100, windowMs: 60_000 };

const batch = (sensorIndex: number, sequence: number, pid: number) => processBatch(sensorIndex, sequence, pid, T0 - 1000);

const heartbeat = (ms: number) => ({ lastCheckinMs: ms, nextCheckinMs: ms + 30_000, clockDeltaMs: 0 });

describe('check-ins during PostgreSQL event commits of the same sensors', () => {
  let db: PostgresDatabase;
  let sensors: SqlSensorsStore;
  before(async () => {
    db = await freshMigratedPostgres();
    await registerSensors(db);
    sensors = new SqlSensorsStore(db);
  });
  after(async () => db.close());

  async function until(probe: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 400; i++) {
      if (await probe()) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('timed out');
  }

  it('writes a check-in group while a commit for its sensors is half sent, and both land', { timeout: 30_000 }, async () => {
    const store = new PostgresEventStore(db, RULES, () => T0);
    // Stalls the commit after it has locked its sensors, before its last writes.
    const blocker = await db.pool.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE host_segment_counts IN EXCLUSIVE MODE');
    let commit: Promise<unknown> | undefined;
    try {
      commit = store.commit([batch(0, 1, 10), batch(1, 1, 20)]);
      await until(async () => (await db.get<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO host_segment_counts%'"))!.n === 1);
      const checkins = new CheckinWrites(sensors);
      const written = Promise.all([checkins.record(SENSORS[0]!.id, heartbeat(T0)), checkins.record(SENSORS[1]!.id, heartbeat(T0))]);
      const stalled = new Promise((resolve) => setTimeout(() => resolve('still waiting for the event commit'), 5_000));
      assert.deepEqual(await Promise.race([written, stalled]), [true, true]);
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
    await commit;
    for (const sensor of SENSORS) {
      const record = (await sensors.get(sensor.id))!;
      assert.deepEqual([record.lastCheckinMs, record.lastSequence], [T0, 1]);
    }
  });

  it('records every check-in group of a fleet whose events commit without pause meanwhile', { timeout: 60_000 }, async () => {
    const store = new PostgresEventStore(db, RULES, () => T0);
    const failures: unknown[] = [];
    const checkins = new CheckinWrites(sensors, (error) => failures.push(error));
    let ingesting = true;
    const commits: Promise<unknown>[] = [];
    const ingest = (async () => {
      for (let sequence = 2; ingesting; sequence++) {
        await store.readyForNext();
        commits.push(store.commit([batch(0, sequence, 100 + sequence), batch(1, sequence, 100_000 + sequence)]));
      }
    })();
    let last = T0;
    for (let round = 0; round < 200; round++) {
      last = T0 + 1_000 * (round + 1);
      for (const sensor of SENSORS) checkins.recordUnwaited(sensor.id, heartbeat(last));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await checkins.written();
    ingesting = false;
    await ingest;
    await Promise.all(commits);
    assert.ok(commits.length > 10, `${commits.length} commits overlapped the check-ins`);
    assert.deepEqual(failures, []);
    for (const sensor of SENSORS) assert.equal((await sensors.get(sensor.id))!.lastCheckinMs, last);
  });
});
