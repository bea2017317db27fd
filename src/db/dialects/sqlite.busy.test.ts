/**
 * Writes on the request thread's connection wait for another connection's write lock on a timer,
 * so that the event loop runs on meanwhile (the event writer's commits hold the lock for a while).
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { tempDir } from '../../../test/support/temp.js';
import { SqliteDatabase } from './sqlite.js';

describe('SQLite writes while another connection holds the write lock', () => {
  let dir: string;
  let file: string;
  let db: SqliteDatabase;
  let other: Database.Database;
  before(async () => {
    dir = tempDir();
    file = join(dir, 'busy.db');
    db = SqliteDatabase.open(file, { yieldWhenBusy: true });
    await db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)');
    other = new Database(file);
  });
  after(async () => {
    other.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Holds the lock on `other` (same thread) until a timer releases it: a wait inside SQLite could never see it released. */
  function holdLockFor(ms: number): { ticks: () => number } {
    other.prepare('BEGIN IMMEDIATE').run();
    other.prepare('INSERT INTO t (n) VALUES (0)').run();
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    setTimeout(() => {
      other.prepare('COMMIT').run();
      clearInterval(ticker);
    }, ms);
    return { ticks: () => ticks };
  }

  it('waits for the lock on a timer for a statement, the event loop running meanwhile', async () => {
    const held = holdLockFor(150);
    const began = Date.now();
    await db.run('INSERT INTO t (n) VALUES (1)');
    assert.ok(Date.now() - began >= 140, 'it waited for the lock');
    assert.ok(held.ticks() >= 10, `the event loop ran ${held.ticks()} timer ticks meanwhile`);
    assert.deepEqual(await db.all('SELECT n FROM t ORDER BY id'), [{ n: 0 }, { n: 1 }]);
  });

  it('waits the same way to begin a transaction, which then commits', async () => {
    const held = holdLockFor(150);
    await db.transaction(async (tx) => {
      await tx.run('INSERT INTO t (n) VALUES (2)');
      await tx.run('INSERT INTO t (n) VALUES (3)');
    });
    assert.ok(held.ticks() >= 10, `the event loop ran ${held.ticks()} timer ticks meanwhile`);
    assert.deepEqual((await db.all<{ n: number }>('SELECT n FROM t ORDER BY id')).map((row) => row.n), [0, 1, 0, 2, 3]);
  });
});
