/**
 * The WAL stays bounded while ingest goes on and searches read: without restarts it only grows
 * (it filled a 64 GB disk in twelve minutes of ingest with searches running).
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { once } from 'node:events';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, it } from 'node:test';
import { processEvents } from '../../test/support/sensors.js';
import { tempDir } from '../../test/support/temp.js';
import type { BusyWriterInit } from '../../test/support/busy-writer.worker.js';
import type { SensorIdentity } from '../domain/sensor-identity.js';
import { FilterGate } from '../ingest/ingress-gate.js';
import { EventPreparer } from '../ingest/prepare.js';
import { ThreadedEventStore } from '../modules/processes/event-store.threaded.js';
import { SqliteDatabase } from './dialects/sqlite.js';
import { LockWaiters } from './dialects/sqlite-lock-waiters.js';
import { SqliteReadPool } from './dialects/sqlite-read-pool.js';
import { migrate } from './migrate.js';
import { sqliteMigrations } from './migrations/sqlite.js';
import { WalCheckpointer } from './wal-checkpointer.js';
import { startSiblingWorker } from './worker-threads.js';

const HANDLER = new URL('../../test/support/count-rows.read-handler.ts', import.meta.url);
const MB = 2 ** 20;
const SENSOR: SensorIdentity = { id: 1, groupId: 1, hostname: 'host', hostType: 'server', osType: 'linux' };

describe('WAL limit', () => {
  const dir = tempDir('vigil-wal-');
  const closing: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });

  const walBytes = (file: string) => statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0;

  it('holds while the event writer commits and searches keep snapshots for their next pages', async () => {
    const file = join(dir, 'ingest.db');
    const db = SqliteDatabase.open(file);
    closing.push(() => db.close());
    await migrate(db, sqliteMigrations);
    await db.exec('CREATE TABLE t (n INTEGER)');
    const store = new ThreadedEventStore(file, { maxEventsPerSegment: 100, windowMs: 60_000 }, { checkpointIntervalMs: 20, walLimitMb: 1 });
    closing.push(() => store.close());
    // Snapshots that, left alone, would outlive the test.
    const pool = new SqliteReadPool(file, { workers: 2, handlers: { count: HANDLER }, snapshots: { max: 64, idleMs: 600_000, firstPageMs: 600_000, maxAgeMs: 600_000 } });
    closing.push(() => pool.close());

    const preparer = new EventPreparer(new FilterGate());
    const commit = (pid: number) => {
      const prepared = preparer.prepare({ sensorId: 1, groupId: 1, osType: 'linux' }, processEvents(pid));
      return store.commit([{ sensor: SENSOR, sequence: pid, ...prepared, counters: new Map() }]);
    };
    const search = (key: string, fresh: boolean) => pool.run<number>('count', { more: true }, { key, fresh });
    // The checkpointer's thread takes a while to start: it runs once a snapshot was let go.
    await db.run('INSERT INTO t (n) VALUES (1)');
    const probed = await search('probe', true);
    await db.run('INSERT INTO t (n) VALUES (2)');
    let pid = 0;
    for (const until = Date.now() + 60_000; Date.now() < until && (await search('probe', false)) === probed;) {
      if (walBytes(file) < 2 * MB) await commit(++pid);
      else await sleep(20);
    }

    const sizes: number[] = [];
    for (const last = pid + 400; pid < last;) {
      // A first page of a search with more to come: its snapshot is kept for the next page.
      if (pid % 10 === 0) await search(`search ${pid}`, true);
      await commit(++pid);
      sizes.push(walBytes(file));
    }
    sizes.sort((a, b) => a - b);
    const median = sizes[sizes.length >> 1]!;
    // The kept snapshots alone would have held every frame of 400 commits (about 45 MB) in the
    // WAL, and forced restarts (past four times the limit) would have waited for them in vain.
    assert.ok(median < 2 * MB, `the WAL was ${(median / MB).toFixed(1)} MB at the median commit, against a 1 MB limit`);
    assert.ok(sizes.at(-1)! < 16 * MB, `the WAL reached ${(sizes.at(-1)! / MB).toFixed(1)} MB`);
  });

  it('is forced back when readers that are not told to let go keep it growing', async () => {
    const lockWaiters = new LockWaiters();
    const file = join(dir, 'forced.db');
    const db = SqliteDatabase.open(file, { lockWaiters });
    closing.push(() => db.close());
    await db.exec('CREATE TABLE t (n INTEGER, filler BLOB)');
    const lockWait = { lockWaitMs: undefined, lockWaiters: lockWaiters.buffer };
    const stop = new SharedArrayBuffer(4);
    // A writer committing back to back that never checkpoints: only the checkpointer can restart the WAL.
    const init: BusyWriterInit = { file, holdMs: 1, lockWait, letWaitingWritersFirst: true, stop, rowBytes: 8_000, autocheckpointPages: 0 };
    const writer = startSiblingWorker(new URL('../../test/support/', import.meta.url).href, 'busy-writer', init);
    closing.push(async () => {
      Atomics.store(new Int32Array(stop), 0, 1);
      await once(writer, 'exit');
    });
    const checkpointer = new WalCheckpointer(file, { intervalMs: 20, walLimitMb: 1, lockWait });
    closing.push(() => checkpointer.close());

    // As a reader of another process (a vigil command) would: one long read after another.
    const reader = new Database(file, { readonly: true });
    closing.push(async () => reader.close());
    const sizes: number[] = [];
    for (const until = Date.now() + 8_000; Date.now() < until;) {
      reader.exec('BEGIN');
      reader.prepare('SELECT count(*) FROM t').get();
      await sleep(200);
      reader.exec('COMMIT');
      await sleep(20);
      sizes.push(walBytes(file));
    }
    const emptied = sizes.filter((bytes, i) => i > 0 && bytes < sizes[i - 1]!).length;
    assert.ok(emptied >= 2, `the WAL was emptied ${emptied} times in 8 s (sizes ${sizes.map((b) => (b / MB).toFixed(1)).join(' ')} MB)`);
    assert.ok(Math.max(...sizes) < 12 * MB, `the WAL reached ${(Math.max(...sizes) / MB).toFixed(1)} MB against 4 MB for a forced restart`);
  });
});
