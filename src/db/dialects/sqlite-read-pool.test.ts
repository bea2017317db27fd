/** The read pool: jobs off the request thread, paging snapshots that hold still while writes go on. */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { tempDir } from '../../../test/support/temp.js';
import { ReadTimeout } from '../errors.js';
import { threadNice } from '../thread-priority.js';
import { SqliteDatabase } from './sqlite.js';
import { SqliteReadPool } from './sqlite-read-pool.js';

const HANDLER = new URL('../../../test/support/count-rows.read-handler.ts', import.meta.url);
const NICE_HANDLER = new URL('../../../test/support/thread-nice.read-handler.ts', import.meta.url);

describe('SQLite read pool', () => {
  const dir = tempDir('vigil-pool-');
  const file = join(dir, 'pool.db');
  let db: SqliteDatabase;
  let pool: SqliteReadPool;
  const insert = (n: number) => db.exec(`WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < ${n}) INSERT INTO t (x) SELECT x FROM i`);
  const count = (more: boolean, snapshot?: { key: string; fresh: boolean }) => pool.run<number>('count', { more }, snapshot);

  before(async () => {
    db = SqliteDatabase.open(file);
    await db.exec('CREATE TABLE t (x INTEGER)');
    pool = new SqliteReadPool(file, { workers: 2, handlers: { count: HANDLER }, snapshots: { max: 2, idleMs: 300, firstPageMs: 300, maxAgeMs: 60_000 } });
  });
  after(async () => {
    await pool.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads committed data, and keeps a paging snapshot still while writes go on', async () => {
    await insert(3);
    assert.equal(await count(false), 3);
    assert.equal(await count(true, { key: 'a', fresh: true }), 3);
    await insert(2);
    assert.equal(await count(false), 5, 'a job outside the snapshot sees the write');
    assert.equal(await count(true, { key: 'a', fresh: false }), 3, 'the next page reads the first page\'s snapshot');
    assert.equal(await count(true, { key: 'a', fresh: true }), 5, 'a first page takes a new snapshot');
  });

  it('lets a snapshot go when the result has no more pages, when idle, and beyond the limit', async () => {
    assert.equal(await count(false, { key: 'b', fresh: true }), await count(false));
    await insert(1);
    assert.equal(await count(false, { key: 'b', fresh: false }), await count(false), 'a last page kept no snapshot');

    const before = await count(true, { key: 'c', fresh: true });
    await insert(1);
    await sleep(700);
    assert.equal(await count(true, { key: 'c', fresh: false }), before + 1, 'an idle snapshot was released');

    // Seven snapshots on two workers holding at most two each: the four most recent stay.
    const keys = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7'];
    for (const key of keys) await count(true, { key, fresh: true });
    const held = await count(false);
    await insert(1);
    let kept = 0;
    for (const key of keys.reverse()) if ((await count(true, { key, fresh: false })) === held) kept++;
    assert.ok(kept >= 2 && kept <= 4, `${kept} snapshots stayed`);
  });

  it('reports a failed job as an error and goes on serving', async () => {
    await assert.rejects(pool.run('count', { more: false, fail: true }), /the handler failed/u);
    await assert.rejects(pool.run('missing', {}), /no read handler/u);
    assert.equal(typeof (await count(false)), 'number');
  });

  it('fails a job whose answer is handled past its time limit, whichever the event loop reached first', async () => {
    // The timer and the answer race when the event loop was busy; the clock decides, not the race.
    let skewMs = 0;
    const limited = new SqliteReadPool(file, { workers: 1, handlers: { count: HANDLER }, timeLimitMs: 60_000, now: () => Date.now() + skewMs });
    try {
      assert.equal(typeof (await limited.run<number>('count', { more: false })), 'number', 'an answer in time is kept');
      const late = limited.run('count', { more: false });
      skewMs = 120_000;
      await assert.rejects(late, ReadTimeout);
      skewMs = 0;
      assert.equal(await limited.run<number>('count', { more: false }), await count(false), 'the pool goes on serving');
    } finally {
      await limited.close();
    }
  });

  it('holds no job of an untimed handler to the time limit', async () => {
    let skewMs = 0;
    const limited = new SqliteReadPool(file, {
      workers: 1, handlers: { count: HANDLER, untimed: HANDLER }, timeLimitMs: 60_000, untimedHandlers: ['untimed'], now: () => Date.now() + skewMs,
    });
    try {
      const timed = limited.run('count', { more: false });
      const untimed = limited.run<number>('untimed', { more: false });
      skewMs = 120_000;
      await assert.rejects(timed, ReadTimeout);
      assert.equal(await untimed, await count(false));
    } finally {
      await limited.close();
    }
  });

  it('runs its workers that much nicer than the process, leaving the request thread as it was', { skip: process.platform !== 'linux' }, async () => {
    const ownNice = threadNice();
    const niced = new SqliteReadPool(file, { workers: 2, handlers: { nice: NICE_HANDLER }, nice: 3 });
    const plain = new SqliteReadPool(file, { workers: 1, handlers: { nice: NICE_HANDLER } });
    try {
      // Two jobs at once: the least busy worker takes each, so both threads answer.
      const answers = await Promise.all([niced.run<number>('nice', {}), niced.run<number>('nice', {})]);
      assert.deepEqual(answers, [Math.min(19, ownNice + 3), Math.min(19, ownNice + 3)]);
      assert.equal(threadNice(), ownNice, 'the request thread keeps its priority');
      assert.equal(await plain.run<number>('nice', {}), ownNice, 'without the setting a worker keeps the process\'s');
    } finally {
      await Promise.all([niced.close(), plain.close()]);
    }
  });

  it('stops a job at the time limit, and the jobs queued behind it run on a new worker', async () => {
    // The new worker boots from source (tsx) within the queued job's own limit: give it seconds, for loaded machines.
    const limitMs = 3_000;
    const limited = new SqliteReadPool(file, { workers: 1, handlers: { count: HANDLER }, timeLimitMs: limitMs });
    try {
      assert.equal(typeof (await limited.run<number>('count', { more: false })), 'number', 'the worker is up');
      const began = Date.now();
      const endless = limited.run('count', { more: false, endless: true });
      // Queued late enough that its own time leaves the new worker (started from source) time to boot.
      await sleep(limitMs - 300);
      const queued = limited.run<number>('count', { more: false });
      await assert.rejects(endless, ReadTimeout);
      assert.ok(Date.now() - began < 2 * limitMs, `answered after ${Date.now() - began} ms`);
      assert.equal(await queued, await count(false), 'the job queued behind it was answered by the new worker');
      assert.equal(await limited.run<number>('count', { more: false }), await count(false));
    } finally {
      await limited.close();
    }
  });
});
