/**
 * Writes on the request thread's connection wait for another connection's write lock on a timer,
 * so that the event loop runs on meanwhile (the event writer's commits hold the lock for a while),
 * whichever way they reach SQLite; past the wait they fail with DatabaseBusy (a 503), and a
 * write never runs inside another caller's transaction.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { tempDir } from '../../../test/support/temp.js';
import { DatabaseBusy } from '../errors.js';
import { SqliteDatabase } from './sqlite.js';

describe('SQLite writes while another connection holds the write lock', () => {
  let dir: string;
  let file: string;
  let db: SqliteDatabase;
  let other: Database.Database;
  before(async () => {
    dir = tempDir();
    file = join(dir, 'busy.db');
    db = SqliteDatabase.open(file, { yieldWhenBusy: true, lockWaitMs: 1_000 });
    await db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)');
    other = new Database(file);
  });
  beforeEach(() => other.exec('DELETE FROM t'));
  after(async () => {
    other.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Holds the lock on `other` (same thread) until a timer releases it: a wait inside SQLite could
   * never see it released. A 5 ms ticker counts the loop's turns meanwhile: a blocked loop counts
   * none; a loaded machine (CI beside other work) may count only a few of the 30.
   */
  function holdLockFor(ms: number): { ticks: () => number; released: Promise<void> } {
    other.prepare('BEGIN IMMEDIATE').run();
    other.prepare('INSERT INTO t (n) VALUES (0)').run();
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    const released = new Promise<void>((resolve) => setTimeout(() => {
      other.prepare('COMMIT').run();
      clearInterval(ticker);
      resolve();
    }, ms));
    return { ticks: () => ticks, released };
  }

  const numbers = async () => (await db.all<{ n: number }>('SELECT n FROM t ORDER BY id')).map((row) => row.n);

  it('waits for the lock on a timer for a statement, the event loop running meanwhile', async () => {
    const held = holdLockFor(150);
    const began = Date.now();
    await db.run('INSERT INTO t (n) VALUES (1)');
    assert.ok(Date.now() - began >= 140, 'it waited for the lock');
    assert.ok(held.ticks() >= 2, `the event loop ran ${held.ticks()} timer ticks meanwhile`);
    assert.deepEqual(await numbers(), [0, 1]);
  });

  it('waits the same way for a write made through get or all (INSERT … RETURNING)', async () => {
    const held = holdLockFor(150);
    const [one, two] = await Promise.all([
      db.get<{ n: number }>('INSERT INTO t (n) VALUES (1) RETURNING n'),
      db.all<{ n: number }>('INSERT INTO t (n) VALUES (2) RETURNING n'),
    ]);
    assert.deepEqual([one, two], [{ n: 1 }, [{ n: 2 }]]);
    assert.ok(held.ticks() >= 2, `the event loop ran ${held.ticks()} timer ticks meanwhile`);
    assert.deepEqual(await numbers(), [0, 1, 2]);
  });

  it('waits the same way to begin a transaction, which then commits', async () => {
    const held = holdLockFor(150);
    await db.transaction(async (tx) => {
      await tx.run('INSERT INTO t (n) VALUES (2)');
      await tx.get('INSERT INTO t (n) VALUES (3) RETURNING id');
    });
    assert.ok(held.ticks() >= 2, `the event loop ran ${held.ticks()} timer ticks meanwhile`);
    assert.deepEqual(await numbers(), [0, 2, 3]);
  });

  it('waits the same way for a synchronous transaction and a script', async () => {
    holdLockFor(100);
    await Promise.all([
      db.transactionSync((connection) => connection.prepare('INSERT INTO t (n) VALUES (4)').run()),
      db.exec('INSERT INTO t (n) VALUES (5); INSERT INTO t (n) VALUES (6)'),
    ]);
    assert.deepEqual(await numbers(), [0, 4, 5, 6]);
  });

  it('fails with DatabaseBusy (503, Retry-After) once the lock stays taken past the wait, having written nothing', async () => {
    const held = holdLockFor(1_300);
    const began = Date.now();
    const [statement, transaction] = await Promise.allSettled([
      db.get('INSERT INTO t (n) VALUES (7) RETURNING n'),
      db.transaction((tx) => tx.run('INSERT INTO t (n) VALUES (8)')),
    ]);
    assert.ok(Date.now() - began >= 990, 'it waited its full second');
    for (const outcome of [statement, transaction]) {
      assert.equal(outcome.status, 'rejected');
      const error = (outcome as PromiseRejectedResult).reason as DatabaseBusy;
      assert.ok(error instanceof DatabaseBusy, String(error));
      assert.equal(error.code, 'unavailable');
      assert.ok(error.retryAfterSeconds > 0);
    }
    await held.released;
    assert.deepEqual(await numbers(), [0]);
  });

  it('opens another connection to the file without waiting for the lock', async () => {
    const held = holdLockFor(300);
    const began = Date.now();
    const second = SqliteDatabase.open(file, { lockWaitMs: 5_000 });
    assert.ok(Date.now() - began < 200, `opening took ${Date.now() - began} ms`);
    assert.equal(second.connection.pragma('auto_vacuum', { simple: true }), 2, 'the file was made with incremental vacuum');
    second.connection.close();
    await held.released;
  });

  it('runs a write of its own after the transaction open on the connection, never inside it', async () => {
    let insideTransaction!: () => void;
    const transactionBegan = new Promise<void>((resolve) => (insideTransaction = resolve));
    let finishTransaction!: () => void;
    const transaction = db.transaction(async (tx) => {
      await tx.run('INSERT INTO t (n) VALUES (1)');
      insideTransaction();
      await new Promise<void>((resolve) => (finishTransaction = resolve));
      throw new Error('rolled back');
    });
    await transactionBegan;
    // Another caller's writes while that transaction is open.
    const writes = Promise.all([db.run('INSERT INTO t (n) VALUES (2)'), db.get('INSERT INTO t (n) VALUES (3) RETURNING n')]);
    finishTransaction();
    await assert.rejects(transaction, /rolled back/);
    await writes;
    assert.deepEqual(await numbers(), [2, 3], 'the writes were not rolled back with the transaction');
  });
});
