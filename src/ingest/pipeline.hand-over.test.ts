/**
 * An upload's prepared events leave the request thread as soon as they are prepared: with a store
 * whose writer runs on its own thread, the commit names them by reference, so the request thread
 * holds no prepared batch while it waits for its commit; and uploads that arrive together are
 * prepared one per event-loop turn (docs/adr/0042).
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { liveMemory } from '../../test/support/live-memory.js';
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

/** The real threaded store, keeping what each commit was asked to carry; `hold()` keeps the next commits from starting. */
class RecordingStore extends ThreadedEventStore {
  readonly committed: IngestBatch[] = [];
  private held: { reached: () => void; release: Promise<void> } | undefined;

  /** Resolves, with the release, once a commit has been asked for and is being held. */
  hold(): Promise<() => void> {
    return new Promise((reached) => {
      let release!: () => void;
      this.held = { reached: () => reached(release), release: new Promise((resolve) => (release = resolve)) };
    });
  }

  override async commit(batches: readonly IngestBatch[]): Promise<IngestOutcome[]> {
    this.committed.push(...batches);
    if (this.held) {
      this.held.reached();
      await this.held.release;
    }
    return super.commit(batches);
  }
}

/** The real writer, noting the event-loop turn (turns.now) in which each batch reached it. */
class TurnNotingWriter extends BatchWriter {
  readonly writtenInTurn: number[] = [];

  constructor(store: ThreadedEventStore, maxEventsPerCommit: number, private readonly turns: { now: number }) {
    super(store, maxEventsPerCommit);
  }

  override write(batch: IngestBatch): Promise<IngestOutcome> {
    this.writtenInTurn.push(this.turns.now);
    return super.write(batch);
  }
}

/** Counts the event loop's turns (one immediate per turn) until stop(). */
function countTurns(): { now: number; stop: () => void } {
  const turns = { now: 0, stop: () => clearImmediate(next) };
  let next = setImmediate(function tick() {
    turns.now++;
    next = setImmediate(tick);
  });
  return turns;
}

/** One process's `count` file writes, each to a path of its own about `pathChars` long. */
function bulkyEvents(pid: number, count: number, pathChars: number): unknown[] {
  const [start] = processEvents(pid);
  return [start, ...Array.from({ length: count }, (_, i) => ({
    type: 'filemod', ts: start!.ts + i, pid, process_start: start!.ts, action: 'last_write', file_type: 0,
    path: `C:\\Data\\${String(i).padStart(6, '0')}\\${'x'.repeat(pathChars)}`,
  }))];
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
    const turns = countTurns();
    after(turns.stop);
    const writer = new TurnNotingWriter(store, maxEventsPerCommit, turns);
    const pipeline = new IngestPipeline(writer, store, new FilterGate(), noFilters, 1 << 20, { recordBlocks: async () => undefined });
    const upload = (sequence: number) => pipeline.upload(SENSOR, Buffer.from(JSON.stringify({ sequence, events: processEvents(40 + sequence) })), undefined);
    return { db, store, writer, pipeline, upload };
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
    const { db, store, writer, upload } = await open('backlog', 8);
    try {
      // While the first upload's commit is held, four more of 8 events queue behind it: two fit in 2 × 8.
      const holding = store.hold();
      const first = upload(1);
      const release = await holding;
      const rest = [2, 3, 4, 5].map(upload);
      while (writer.writtenInTurn.length < 5) await new Promise(setImmediate);
      release();
      const replies = await Promise.all([first, ...rest]);
      assert.deepEqual(replies.map((reply) => reply.accepted), [8, 8, 8, 8, 8]);
      assert.equal(store.committed.filter((batch) => batch.handedOver !== undefined).length, 3);
      assert.equal(store.committed.filter((batch) => batch.processes.length > 0).length, 2);
      assert.deepEqual(await db.get('SELECT COUNT(*) AS n FROM processes WHERE pid BETWEEN 41 AND 45'), { n: 5 });
    } finally {
      await store.close();
      await db.close();
    }
  });

  it('holds neither the parsed nor the prepared events while an upload waits for its commit', async () => {
    const { db, store, pipeline } = await open('held', 32_000);
    try {
      const body = Buffer.from(JSON.stringify({ sequence: 1, events: bulkyEvents(77, 2_000, 1_000) }));
      const holding = store.hold();
      const reply = pipeline.upload(SENSOR, body, undefined);
      const release = await holding;
      const waiting = liveMemory();
      release();
      assert.equal((await reply).accepted, 2_001);
      // The parsed events and their prepared chunk each take about the body's size; a frame that
      // kept either across the wait would hold well over a quarter of it.
      const held = waiting - liveMemory();
      assert.ok(held < body.length / 4, `${held} bytes held while waiting for the commit, for a body of ${body.length}`);
    } finally {
      await store.close();
      await db.close();
    }
  });

  it('parses and prepares uploads that arrive together one per event-loop turn', async () => {
    const { db, store, writer, upload } = await open('turns', 32_000);
    try {
      // Bodies without gzip are ready at once: without turns, all four ran in this one.
      const replies = await Promise.all([1, 2, 3, 4].map(upload));
      assert.deepEqual(replies.map((reply) => reply.accepted), [8, 8, 8, 8]);
      assert.equal(new Set(writer.writtenInTurn).size, 4, `written in turns ${writer.writtenInTurn.join(', ')}`);
    } finally {
      await store.close();
      await db.close();
    }
  });
});
