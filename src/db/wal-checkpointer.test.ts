/**
 * The WAL checkpointer keeps the WAL file bounded while writes go on and readers keep snapshots:
 * without its restarts the file only grows (it filled a 64 GB disk in twelve minutes of ingest
 * with searches running).
 */
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, it } from 'node:test';
import { tempDir } from '../../test/support/temp.js';
import type { BusyWriterInit } from '../../test/support/busy-writer.worker.js';
import { SqliteDatabase } from './dialects/sqlite.js';
import { LockWaiters } from './dialects/sqlite-lock-waiters.js';
import { SqliteReadPool } from './dialects/sqlite-read-pool.js';
import { WalCheckpointer } from './wal-checkpointer.js';
import { startSiblingWorker } from './worker-threads.js';

const HANDLER = new URL('../../test/support/count-rows.read-handler.ts', import.meta.url);
const MB = 2 ** 20;
/** Snapshots that, left alone, would outlive the test. */
const KEPT_SNAPSHOTS = { max: 64, idleMs: 600_000, firstPageMs: 600_000, maxAgeMs: 600_000 };

describe('WAL checkpointer', () => {
  const dir = tempDir('vigil-wal-');
  const closing: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });

  function walBytes(file: string): number {
    return statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0;
  }

  async function openStore(name: string, lockWaiters?: LockWaiters): Promise<{ file: string; db: SqliteDatabase }> {
    const file = join(dir, name);
    const db = SqliteDatabase.open(file, { lockWaiters });
    closing.push(() => db.close());
    await db.exec('CREATE TABLE t (n INTEGER, filler BLOB)');
    return { file, db };
  }

  it('empties the WAL past its limit, ending the snapshots searches keep for their next pages', async () => {
    const { file, db } = await openStore('snapshots.db');
    const pool = new SqliteReadPool(file, { workers: 2, handlers: { count: HANDLER }, snapshots: KEPT_SNAPSHOTS });
    closing.push(() => pool.close());
    const checkpointer = new WalCheckpointer(file, { intervalMs: 20, walLimitMb: 1 });
    closing.push(() => checkpointer.close());

    let largest = 0;
    for (let round = 0; round < 40; round++) {
      // A first page of a search with more to come: its snapshot is kept for the next page.
      await pool.run('count', { more: true }, { key: `search ${round}`, fresh: true });
      for (let i = 0; i < 25; i++) await db.run('INSERT INTO t (n, filler) VALUES (?, randomblob(10000))', [round]);
      await sleep(25);
      largest = Math.max(largest, walBytes(file));
    }
    // 40 rounds wrote 10 MB: held snapshots alone would have kept all of it in the WAL.
    assert.ok(largest < 4 * MB, `the WAL grew to ${(largest / MB).toFixed(1)} MB against a 1 MB limit`);
    const rows = await pool.run<number>('count', { more: true }, { key: 'search 0', fresh: false });
    assert.equal(rows, 1_000, 'the first search\'s next page reads a fresh snapshot, its own was ended');
  });

  it('gets the write lock from an event writer committing back to back', async () => {
    const lockWaiters = new LockWaiters();
    const { file } = await openStore('busy.db', lockWaiters);
    const stop = new SharedArrayBuffer(4);
    const init: BusyWriterInit = { file, holdMs: 2, lockWait: { lockWaitMs: undefined, lockWaiters: lockWaiters.buffer }, letWaitingWritersFirst: true, stop };
    const writer = startSiblingWorker(new URL('../../test/support/', import.meta.url).href, 'busy-writer', init);
    closing.push(async () => {
      Atomics.store(new Int32Array(stop), 0, 1);
      await new Promise((resolve) => writer.once('exit', resolve));
    });
    const checkpointer = new WalCheckpointer(file, { intervalMs: 50, walLimitMb: 1, lockWait: { lockWaitMs: undefined, lockWaiters: lockWaiters.buffer } });
    closing.push(() => checkpointer.close());

    const restarts: number[] = [];
    let previous = 0;
    for (const until = Date.now() + 6_000; Date.now() < until && restarts.length < 2;) {
      await sleep(10);
      const bytes = walBytes(file);
      if (bytes < previous) restarts.push(previous);
      previous = bytes;
    }
    assert.ok(restarts.length >= 2, `the WAL was emptied ${restarts.length} times in 6 s of back-to-back commits (reached ${(previous / MB).toFixed(1)} MB)`);
    for (const bytes of restarts) assert.ok(bytes < 4 * MB, `emptied at ${(bytes / MB).toFixed(1)} MB`);
  });
});
