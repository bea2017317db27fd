/**
 * The embedded store's connections take their memory bounds from settings (ADR 0030, 0039): the
 * page cache of the request thread's and the writer's connections, each search connection's page
 * cache (held only while a search runs on it) and mapping of the file, and the search threads'
 * heap limit.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { MemoryPragmas } from '../../../test/support/memory-pragmas.read-handler.js';
import { tempDir } from '../../../test/support/temp.js';
import { DEFAULT_PAGE_CACHE_MB, SqliteDatabase } from './sqlite.js';
import { SqliteReadPool, type ReadPoolOptions } from './sqlite-read-pool.js';

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

  /** A pool of `workers` search threads on a fresh file, with the handler that reports its memory, closed after `use`. */
  async function withPool<T>(name: string, options: Omit<ReadPoolOptions, 'handlers'>, use: (pool: SqliteReadPool) => Promise<T>): Promise<T> {
    const file = join(dir, `${name}.db`);
    const db = SqliteDatabase.open(file);
    const pool = new SqliteReadPool(file, { ...options, handlers: { pragmas: HANDLER } });
    try {
      return await use(pool);
    } finally {
      await pool.close();
      await db.close();
    }
  }

  it('gives every search connection the page cache and file mapping asked for', async () => {
    const replies = await withPool('read', { workers: 2, memory: { pageCacheMb: 5, mmapMb: 7 } }, (pool) => Promise.all([1, 2, 3, 4].map(() => pool.run<MemoryPragmas>('pragmas', {}))));
    for (const { cacheSize, mmapSize } of replies) assert.deepEqual({ cacheSize, mmapSize }, { cacheSize: -5 * 1024, mmapSize: 7 * 2 ** 20 });
  });

  it('lets a search connection\'s pages go when its job ends, idle or holding a paging snapshot', async () => {
    await withPool('release', { workers: 1, memory: { pageCacheMb: 5, mmapMb: 0 } }, async (pool) => {
      const pragmas = (more: boolean, snapshot?: { key: string; fresh: boolean }) => pool.run<MemoryPragmas>('pragmas', { more }, snapshot);
      await pragmas(true, { key: 'paging', fresh: true });
      const besideTheSnapshot = await pragmas(false);
      assert.equal(besideTheSnapshot.cacheSize, -5 * 1024, 'a job runs with the page cache asked for');
      assert.equal(besideTheSnapshot.previousCacheSize, 0, 'the snapshot waiting for its next page holds no pages');
      const nextPage = await pragmas(false, { key: 'paging', fresh: false });
      assert.equal(nextPage.cacheSize, -5 * 1024, 'the next page has its cache again');
      assert.equal(nextPage.previousCacheSize, 0, 'the idle connection holds no pages');
    });
  });

  it('starts the search threads under the heap limit asked for', async () => {
    const limits = (heapLimitMb: number | undefined) => withPool(`heap-${heapLimitMb}`, { workers: 2, heapLimitMb }, async (pool) =>
      (await Promise.all([1, 2].map(() => pool.run<MemoryPragmas>('pragmas', {})))).map((reply) => reply.heapSizeLimit / 2 ** 20));
    // heap_size_limit is the old generation's limit plus the young generation's (48 MB at most).
    for (const limit of await limits(96)) assert.ok(limit >= 96 && limit <= 96 + 64, `enforced ${limit} MB`);
    for (const limit of await limits(undefined)) assert.ok(limit > 96 + 64, `Node's default: ${limit} MB`);
  });
});
