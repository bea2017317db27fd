/**
 * Overlapping commits of the PostgreSQL event store (event-store.commits.postgres.ts): the next
 * commit is prepared while the previous one writes, commits still finish in order, and when one
 * fails, the commit prepared on its memory fails with it, and both stored on retry store each event once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { processBatch, registerSensors } from '../../../test/support/event-stores.js';
import { freshMigratedPostgres } from '../../../test/support/postgres-migrated.js';
import type { PostgresDatabase } from '../../db/dialects/postgres.js';
import { DatabaseUnavailable } from '../../db/errors.js';
import { PostgresEventStore } from './event-store.postgres.js';

const T0 = 1_763_000_000_000;
const RULES = { maxEventsPerSegment: 100, windowMs: 60_000 };

const batch = (sensorIndex: number, sequence: number, pid: number) => processBatch(sensorIndex, sequence, pid, T0 - 1000);

describe('PostgreSQL event store, overlapping commits', () => {
  let db: PostgresDatabase;
  before(async () => {
    db = await freshMigratedPostgres();
    await registerSensors(db);
  });
  after(async () => db.close());

  /** Holds a lock on host_segment_counts, which every commit writes last but one, until released. */
  async function blockCommits(): Promise<{ release: () => Promise<void>; waiting: () => Promise<number[]> }> {
    const blocker = await db.pool.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE host_segment_counts IN EXCLUSIVE MODE');
    return {
      release: async () => {
        await blocker.query('ROLLBACK');
        blocker.release();
      },
      waiting: async () => (await db.pool.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO host_segment_counts%'")).rows.map((r) => r.pid),
    };
  }

  async function until<T>(probe: () => Promise<T | undefined>): Promise<T> {
    for (let i = 0; i < 200; i++) {
      const found = await probe();
      if (found !== undefined) return found;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('timed out');
  }

  it('prepares the next commit while one writes, fails it with the one that fails, and both store once on retry', { timeout: 30_000 }, async () => {
    const store = new PostgresEventStore(db, RULES, () => T0);
    const first = batch(0, 1, 10);
    const second = batch(1, 1, 20);
    const blocked = await blockCommits();
    try {
      // Each failure is awaited from the start: the second commit may fail before the first's
      // failure reaches this test, and a rejection nobody awaits yet fails the whole test.
      const firstFails = assert.rejects(store.commit([first]), DatabaseUnavailable);
      const [writer] = await until(async () => ((await blocked.waiting()).length > 0 ? blocked.waiting() : undefined));
      await store.readyForNext();
      const secondFails = assert.rejects(store.commit([second]), DatabaseUnavailable);
      // The second commit reads (and then runs its pass) while the first still waits to write.
      await until(async () => ((await db.get<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction' AND query LIKE '%AS k(sensor_id, pid, start_ms)%'"))!.n === 1 ? true : undefined));
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(await blocked.waiting(), [writer]);
      await db.pool.query('SELECT pg_terminate_backend($1)', [writer]);
      await firstFails;
      // Its pass counted on the first's memory (its known terms), so it must not commit alone.
      await secondFails;
    } finally {
      await blocked.release();
    }
    assert.deepEqual(await store.commit([first]), [{ duplicate: false, accepted: first.processes[0]!.eventCount, filtered: 0 }]);
    assert.deepEqual(await store.commit([second]), [{ duplicate: false, accepted: second.processes[0]!.eventCount, filtered: 0 }]);
    const stored = await db.get<{ segments: number; chunks: number; missing_terms: number }>(`
      SELECT (SELECT sum(event_count) FROM segments)::int AS segments, (SELECT sum(event_count) FROM event_chunks)::int AS chunks,
        (SELECT count(*) FROM segment_terms t, unnest(t.terms) term
         WHERE NOT EXISTS (SELECT 1 FROM event_terms d WHERE d.field || ':' || d.value = term))::int AS missing_terms`);
    const sent = first.processes[0]!.eventCount + second.processes[0]!.eventCount;
    assert.deepEqual(stored, { segments: sent, chunks: sent, missing_terms: 0 });
  });
});
