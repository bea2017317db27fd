/**
 * The embedded store's connections take their memory bounds from settings (ADR 0030): the page
 * cache of the request thread's and the writer's connections, and each search connection's page
 * cache and mapping of the file.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { tempDir } from '../../../test/support/temp.js';
import { DEFAULT_PAGE_CACHE_MB, SqliteDatabase } from './sqlite.js';
import { SqliteReadPool } from './sqlite-read-pool.js';

const HANDLER = new URL('../../../test/support/memory-pragmas.read-handler.ts', import.meta.url);

describe('SQLite connection memory bounds', () => {
  const dir = tempDir('vigil-memory-');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('gives a read-write connection the page cache asked for, 64 MB by default', async () => {
    const sized = SqliteDatabase.open(join(dir, 'sized.db'), { pageCacheMb: 3 });
    const plain = SqliteDatabase.open(join(dir, 'plain.db'));
    try {
      // A negative cache_size is in KiB.
      assert.equal(sized.connection.pragma('cache_size', { simple: true }), -3 * 1024);
      assert.equal(plain.connection.pragma('cache_size', { simple: true }), -DEFAULT_PAGE_CACHE_MB * 1024);
    } finally {
      await sized.close();
      await plain.close();
    }
  });

  it('gives every search connection the page cache and file mapping asked for', async () => {
    const file = join(dir, 'read.db');
    const db = SqliteDatabase.open(file);
    await db.exec('CREATE TABLE t (x INTEGER)');
    const pool = new SqliteReadPool(file, { workers: 2, handlers: { pragmas: HANDLER }, memory: { pageCacheMb: 5, mmapMb: 7 } });
    try {
      const replies = await Promise.all([1, 2, 3, 4].map(() => pool.run<{ cacheSize: number; mmapSize: number }>('pragmas', {})));
      for (const reply of replies) assert.deepEqual(reply, { cacheSize: -5 * 1024, mmapSize: 7 * 2 ** 20 });
    } finally {
      await pool.close();
      await db.close();
    }
  });
});
