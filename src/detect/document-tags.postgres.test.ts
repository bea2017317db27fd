/** Document tags on PostgreSQL read as the embedded store's worker reads them, from the same hits on the same events. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bothStores, FLEET_T0, type BothStores } from '../../test/support/both-stores.js';
import type { SqlDatabase } from '../db/database.js';
import { SqliteReadPool } from '../db/dialects/sqlite-read-pool.js';
import { PooledDocumentTags, READ_HANDLERS } from '../wiring/sqlite-read-stores.js';
import { PostgresDocumentTags } from './document-tags.postgres.js';

const MD5 = 'a'.repeat(32);

/** A watchlist hit on every second segment, and one on a binary. */
async function tag(db: SqlDatabase): Promise<number[]> {
  const rows = await db.all<{ id: number; sensor_id: number }>('SELECT s.id, p.sensor_id FROM segments s JOIN processes p ON p.id = s.process_id ORDER BY s.id');
  const watchlist = await db.get<{ id: number }>(
    `INSERT INTO watchlists (name, search_query, index_type, enabled, readonly, group_id, from_alliance, date_added_ms)
     VALUES ('w', 'q=x', 'events', 1, 0, -1, 0, ?) RETURNING id`, [FLEET_T0],
  );
  for (const [i, row] of rows.entries()) {
    if (i % 2 === 0) {
      await db.run('INSERT INTO watchlist_process_hits (watchlist_id, segment_row, hit_ms, sensor_id) VALUES (?, ?, ?, ?)',
        [watchlist!.id, row.id, FLEET_T0 + i, row.sensor_id]);
    }
  }
  await db.run('INSERT INTO watchlist_binary_hits (watchlist_id, md5, hit_ms) VALUES (?, ?, ?)', [watchlist!.id, MD5, FLEET_T0]);
  return rows.map((r) => r.id);
}

describe('document tags on PostgreSQL', () => {
  let stores: BothStores;
  let pool: SqliteReadPool;
  let segments: { sqlite: number[]; postgres: number[] };
  before(async () => {
    stores = await bothStores();
    segments = { sqlite: await tag(stores.sqlite), postgres: await tag(stores.postgres) };
    pool = new SqliteReadPool(stores.sqlite.connection.name, { workers: 1, handlers: { [READ_HANDLERS.documentTags.name]: READ_HANDLERS.documentTags.url } });
  });
  after(async () => {
    await pool.close();
    await stores.close();
  });

  it('tags each process document with its process\'s hits, and binaries with theirs, as on SQLite', async () => {
    const sqlite = new PooledDocumentTags(pool);
    const postgres = new PostgresDocumentTags(stores.postgres);
    const expected = [...(await sqlite.segmentTags(segments.sqlite)).values()];
    assert.ok(expected.length > 0, 'some documents are tagged');
    assert.deepEqual([...(await postgres.segmentTags(segments.postgres)).values()], expected);
    assert.deepEqual(await postgres.binaryTags([MD5, 'b'.repeat(32)]), await sqlite.binaryTags([MD5, 'b'.repeat(32)]));
    assert.deepEqual(await postgres.segmentTags([]), new Map());
  });
});
