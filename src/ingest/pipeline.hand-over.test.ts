/**
 * An upload's prepared events leave the request thread as soon as they are prepared: with a store
 * whose writer runs on its own thread, the commit names them by reference, so the request thread
 * holds no prepared batch while it waits for its commit (docs/adr/0042).
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { processEvents } from '../../test/support/sensors.js';
import { tempDir } from '../../test/support/temp.js';
import { SqliteDatabase } from '../db/dialects/sqlite.js';
import { migrate } from '../db/migrate.js';
import { sqliteMigrations } from '../db/migrations/sqlite.js';
import type { SensorIdentity } from '../domain/sensor-identity.js';
import { ThreadedEventStore } from '../modules/processes/event-store.threaded.js';
import { BatchWriter } from './batch-writer.js';
import type { IngestBatch, IngestOutcome } from './event-store.js';
import { FilterGate } from './ingress-gate.js';
import { IngestPipeline } from './pipeline.js';

const SENSOR: SensorIdentity = { id: 1, groupId: 1, hostname: 'host', hostType: 'server', osType: 'linux' };

/** The real threaded store, keeping what each commit was asked to carry. */
class RecordingStore extends ThreadedEventStore {
  readonly committed: IngestBatch[] = [];

  override commit(batches: readonly IngestBatch[]): Promise<IngestOutcome[]> {
    this.committed.push(...batches);
    return super.commit(batches);
  }
}

describe('ingest pipeline hand-over', () => {
  const dir = tempDir('vigil-hand-over-');
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A pipeline on a fresh store whose commits carry at most `maxEventsPerCommit` events. */
  async function open(name: string, maxEventsPerCommit: number) {
    const file = join(dir, `${name}.db`);
    const db = SqliteDatabase.open(file);
    await migrate(db, sqliteMigrations);
    const store = new RecordingStore(file, { maxEventsPerSegment: 100, windowMs: 60_000 });
    const noFilters = { compiled: async () => [], recordProcessCounts: () => undefined };
    const pipeline = new IngestPipeline(new BatchWriter(store, maxEventsPerCommit), store, new FilterGate(), noFilters, 1 << 20, { recordBlocks: async () => undefined });
    const upload = (sequence: number) => pipeline.upload(SENSOR, Buffer.from(JSON.stringify({ sequence, events: processEvents(40 + sequence) })), undefined);
    return { db, store, upload };
  }

  it('sends prepared events to the writer thread before their commit, which stores them by reference', async () => {
    const { db, store, upload } = await open('events', 32_000);
    try {
      const replies = await Promise.all([upload(1), upload(2)]);
      assert.deepEqual(replies.map((reply) => [reply.accepted, reply.duplicate]), [[8, false], [8, false]]);
      assert.deepEqual(store.committed.map((batch) => [batch.processes.length, batch.handedOver?.events]), [[0, 8], [0, 8]]);
      assert.deepEqual(await db.get('SELECT COUNT(*) AS n FROM processes WHERE pid IN (41, 42)'), { n: 2 });
      assert.equal((await upload(2)).duplicate, true, 'a repeated sequence is still a duplicate');
      assert.equal(await store.dropHandedOver([]), 0, 'the writer keeps no batch once committed');
    } finally {
      await store.close();
      await db.close();
    }
  });

  it('keeps a backlog beyond two commits\' worth on the request thread, out of the writer\'s bounded heap', async () => {
    const { db, store, upload } = await open('backlog', 8);
    try {
      // Four uploads of 8 events queue up before the first commit takes one: two fit in 2 × 8.
      const replies = await Promise.all([1, 2, 3, 4].map(upload));
      assert.deepEqual(replies.map((reply) => reply.accepted), [8, 8, 8, 8]);
      assert.equal(store.committed.filter((batch) => batch.handedOver !== undefined).length, 2);
      assert.equal(store.committed.filter((batch) => batch.processes.length > 0).length, 2);
      assert.deepEqual(await db.get('SELECT COUNT(*) AS n FROM processes WHERE pid BETWEEN 41 AND 44'), { n: 4 });
    } finally {
      await store.close();
      await db.close();
    }
  });
});
