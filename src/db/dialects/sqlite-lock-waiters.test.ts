/**
 * A writer on another thread that commits back to back (the event writer under full-rate ingest)
 * leaves the lock free for microseconds between commits; a connection waiting on a timer would
 * almost never find it free. The writer lets the connections already waiting go first.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BusyWriterInit } from '../../../test/support/busy-writer.worker.js';
import { tempDir } from '../../../test/support/temp.js';
import { startSiblingWorker } from '../worker-threads.js';
import { LockWaiters } from './sqlite-lock-waiters.js';
import { SqliteDatabase } from './sqlite.js';

const LOCK_WAIT_MS = 2_000;

describe('the lock for connections waiting on a timer, against a writer committing back to back', () => {
  let dir: string;
  let file: string;
  let db: SqliteDatabase;
  before(async () => {
    dir = tempDir();
    file = join(dir, 'turns.db');
    db = SqliteDatabase.open(file, { yieldWhenBusy: true, lockWaitMs: LOCK_WAIT_MS, lockWaiters: new LockWaiters() });
    await db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)');
  });
  after(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every write gets it within about a commit, and the writer keeps committing', async () => {
    const stop = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
    const init: BusyWriterInit = { file, holdMs: 30, lockWait: db.lockWait, letWaitingWritersFirst: true, stop };
    const writer = startSiblingWorker(new URL('../../../test/support/', import.meta.url).href, 'busy-writer', init);
    assert.deepEqual(await once(writer, 'message'), ['committing']);

    const waits: number[] = [];
    for (let i = 1; i <= 20; i++) {
      const began = performance.now();
      await (i % 2 ? db.run('INSERT INTO t (n) VALUES (?)', [i]) : db.get('INSERT INTO t (n) VALUES (?) RETURNING id', [i]));
      waits.push(performance.now() - began);
      await sleep(25);
    }
    Atomics.store(new Int32Array(stop), 0, 1);
    const [commits] = (await once(writer, 'message')) as [number];
    await writer.terminate();

    const mine = await db.all<{ n: number }>('SELECT n FROM t WHERE n > 0 ORDER BY id');
    assert.deepEqual(mine.map((row) => row.n), Array.from({ length: 20 }, (_, i) => i + 1));
    assert.ok(Math.max(...waits) < LOCK_WAIT_MS / 2, `the longest wait was ${Math.max(...waits).toFixed(0)} ms`);
    assert.ok(commits >= 10, `the writer committed ${commits} times meanwhile`);
  });
});
