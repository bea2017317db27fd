/**
 * Paging snapshots on a real PostgreSQL: the pages of a key read the first page's data, and a
 * snapshot is let go (its connection back in the pool) when its result has no more pages, when
 * more than `max` are held, when a statement in it fails, and when unused for too long.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { freshMigratedPostgres } from '../../../test/support/postgres-migrated.js';
import type { SqlExecutor } from '../database.js';
import type { PostgresDatabase } from './postgres.js';
import { PostgresPagingSnapshots } from './postgres-paging.js';

describe('PostgreSQL paging snapshots', () => {
  let db: PostgresDatabase;
  let snapshots: PostgresPagingSnapshots;
  const openSnapshots = (firstPageMs: number) => new PostgresPagingSnapshots(db, { max: 2, idleMs: 60_000, firstPageMs, maxAgeMs: 300_000 });
  before(async () => {
    db = await freshMigratedPostgres();
    await db.exec('CREATE TABLE items (n INTEGER)');
    // A first page is held for a minute here, so that a loaded machine's pauses between pages do
    // not let it go; the last test shortens that to see it happen.
    snapshots = openSnapshots(60_000);
  });
  after(async () => {
    snapshots.close();
    await db.close();
  });

  const count = (reader: SqlExecutor) => reader.get<{ n: number }>('SELECT count(*)::int AS n FROM items').then((row) => row!.n);
  const page = (key: string, fresh: boolean, more = true) => snapshots.read({ key, fresh }, async (reader) => ({ result: await count(reader), more }));
  const add = () => db.run('INSERT INTO items VALUES (1)');
  /** Connections out of the pool: the snapshots held. */
  const held = async () => {
    await sleep(20);
    return db.pool.totalCount - db.pool.idleCount;
  };

  it('reads later pages in the first page\'s snapshot until the result has no more pages', async () => {
    const first = await page('a', true);
    await add();
    assert.equal(await page('a', false), first, 'a later page does not see the new row');
    assert.equal(await page('a', false, false), first, 'nor the last page');
    assert.equal(await page('a', false), first + 1, 'after the last page, a page reads afresh');
    assert.equal(await page('a', true), first + 1, 'and so does a first page');
  });

  it('holds at most max snapshots, letting the least recently used go', async () => {
    const before = await page('x', true);
    await page('y', true);
    await add();
    await page('z', true);
    assert.equal(await held(), 2);
    assert.equal(await page('y', false), before, 'y is still held');
    assert.equal(await page('x', false), before + 1, 'x was let go');
  });

  it('lets a snapshot go when a statement in it fails, and after a first page no second page followed', async () => {
    snapshots.close();
    snapshots = openSnapshots(100);
    await assert.rejects(snapshots.read({ key: 'bad', fresh: true }, async (reader) => ({ result: await reader.get('SELECT * FROM no_such_table'), more: true })));
    const first = await page('idle', true);
    await add();
    await sleep(250);
    assert.equal(await page('idle', false), first + 1, 'released while idle');
    snapshots.close();
    assert.equal(await held(), 0, 'every connection is back in the pool');
  });
});
