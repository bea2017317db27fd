/**
 * The event store on its own thread: commits made there are in the file the request thread
 * reads, and a failure in the writer reaches the caller as an error with the driver's message
 * instead of a hang or a crash.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { processEvents } from '../../../test/support/sensors.js';
import { tempDir } from '../../../test/support/temp.js';
import { SqliteDatabase } from '../../db/dialects/sqlite.js';
import { migrate } from '../../db/migrate.js';
import { sqliteMigrations } from '../../db/migrations/sqlite.js';
import { FilterGate } from '../../ingest/ingress-gate.js';
import { EventPreparer } from '../../ingest/prepare.js';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import { ThreadedEventStore } from './event-store.threaded.js';

const SENSOR: SensorIdentity = { id: 1, groupId: 1, hostname: 'host', hostType: 'server', osType: 'linux' };
const RULES = { maxEventsPerSegment: 100, windowMs: 60_000 };

describe('threaded event store', () => {
  const dir = tempDir('vigil-threaded-');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('commits on the writer thread into the shared file', async () => {
    const file = join(dir, 'ok.db');
    const db = SqliteDatabase.open(file);
    await migrate(db, sqliteMigrations);
    const store = new ThreadedEventStore(file, RULES);
    const prepared = new EventPreparer(new FilterGate()).prepare({ sensorId: 1, groupId: 1, osType: 'linux' }, processEvents(7));
    const [outcome] = await store.commit([{ sensor: SENSOR, sequence: 1, ...prepared, counters: new Map() }]);
    assert.deepEqual(outcome, { duplicate: false, accepted: 8, filtered: 0 });
    assert.deepEqual(await db.get('SELECT COUNT(*) AS n FROM processes WHERE pid = 7'), { n: 1 });
    await store.close();
    await db.close();
  });

  it('leaves checkpoints to the checkpointer thread, which copies its commits into the database file', async () => {
    const file = join(dir, 'checkpointed.db');
    const db = SqliteDatabase.open(file);
    await migrate(db, sqliteMigrations);
    db.connection.pragma('wal_checkpoint(TRUNCATE)');
    const store = new ThreadedEventStore(file, RULES, { checkpointIntervalMs: 20 });
    // The database file alone, without its WAL: what checkpoints have copied so far.
    const inFile = () => {
      copyFileSync(file, `${file}.copy`);
      const copy = new Database(`${file}.copy`, { readonly: true });
      try {
        return copy.prepare('SELECT COUNT(*) FROM processes WHERE pid = 8').pluck().get();
      } finally {
        copy.close();
      }
    };
    try {
      const prepared = new EventPreparer(new FilterGate()).prepare({ sensorId: 1, groupId: 1, osType: 'linux' }, processEvents(8));
      await store.commit([{ sensor: SENSOR, sequence: 1, ...prepared, counters: new Map() }]);
      const deadline = Date.now() + 5_000;
      while (inFile() === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(inFile(), 1, 'the commit reached the database file without a checkpoint of the writer or this connection');
    } finally {
      await store.close();
      await db.close();
    }
  });

  it('runs the writer thread under the heap limit asked for (config ingestWriterHeapMb), and commits under it', async () => {
    const file = join(dir, 'heap.db');
    const db = SqliteDatabase.open(file);
    await migrate(db, sqliteMigrations);
    const limited = new ThreadedEventStore(file, RULES, { heapLimitMb: 80 });
    const unlimited = new ThreadedEventStore(file, RULES);
    try {
      const prepared = new EventPreparer(new FilterGate()).prepare({ sensorId: 1, groupId: 1, osType: 'linux' }, processEvents(9));
      const [outcome] = await limited.commit([{ sensor: SENSOR, sequence: 1, ...prepared, counters: new Map() }]);
      assert.equal(outcome!.accepted, 8);
      assert.equal(limited.writerHeapLimitMb, 80);
      assert.ok(unlimited.writerHeapLimitMb! > 80, `Node's default: ${unlimited.writerHeapLimitMb} MB`);
    } finally {
      await limited.close();
      await unlimited.close();
      await db.close();
    }
  });

  it('rejects with the driver error when the writer cannot commit, and keeps answering', async () => {
    const store = new ThreadedEventStore(join(dir, 'empty.db'), RULES);
    try {
      await assert.rejects(store.countRejection(1, new Map([['x', 1]])), (error: Error & { code?: string }) => {
        assert.match(error.message, /no such table/);
        assert.equal(error.code, 'SQLITE_ERROR');
        return true;
      });
      await assert.rejects(store.countRejection(1, new Map([['x', 1]])), /no such table/);
    } finally {
      await store.close();
    }
  });

  it('commits batches another thread handed to the writer, whichever of batch, commit or drop arrives first, and keeps none', async () => {
    const file = join(dir, 'handed.db');
    const db = SqliteDatabase.open(file);
    await migrate(db, sqliteMigrations);
    const store = new ThreadedEventStore(file, RULES);
    const port = store.handOvers.port();
    const preparer = new EventPreparer(new FilterGate());
    const processesOf = (pid: number) => preparer.prepare({ sensorId: 0, groupId: 0, osType: 'linux' }, processEvents(pid)).processes;
    try {
      // The commit first: it waits for its batch.
      const committed = store.commit([{ sensor: SENSOR, sequence: 1, processes: [], filtered: 0, counters: new Map(), handedOver: { ref: 'a', events: 8 } }]);
      await new Promise((resolve) => setTimeout(resolve, 50));
      port.postMessage({ ref: 'a', processes: processesOf(21) });
      assert.deepEqual(await committed, [{ duplicate: false, accepted: 8, filtered: 0 }]);
      // The batch first.
      port.postMessage({ ref: 'b', processes: processesOf(22) });
      assert.deepEqual(await store.commit([{ sensor: SENSOR, sequence: 2, processes: [], filtered: 0, counters: new Map(), handedOver: { ref: 'b', events: 8 } }]),
        [{ duplicate: false, accepted: 8, filtered: 0 }]);
      assert.deepEqual(await db.all('SELECT pid FROM processes WHERE pid IN (21, 22) ORDER BY pid'), [{ pid: 21 }, { pid: 22 }]);
      // Dropped after it came, and before.
      const heldOnceItIs = async (expected: number) => {
        let held = await store.dropHandedOver([]);
        for (const deadline = Date.now() + 5_000; held !== expected && Date.now() < deadline;) held = await store.dropHandedOver([]);
        return held;
      };
      port.postMessage({ ref: 'd', processes: processesOf(24) });
      assert.equal(await heldOnceItIs(1), 1, 'd held');
      assert.equal(await store.dropHandedOver(['c']), 2, 'the drop of c waits for its batch');
      port.postMessage({ ref: 'c', processes: processesOf(23) });
      assert.equal(await heldOnceItIs(1), 1, 'c let go as it came');
      assert.equal(await store.dropHandedOver(['d']), 0);
      assert.deepEqual(await db.all('SELECT pid FROM processes WHERE pid IN (23, 24)'), []);
    } finally {
      port.close();
      await store.close();
      await db.close();
    }
  });
});
