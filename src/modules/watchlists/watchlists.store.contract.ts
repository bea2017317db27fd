/** The contract of WatchlistsStore, run against every dialect (watchlists.store.test.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import { ConflictError } from '../../domain/errors.js';
import { SqlWatchlistsStore, type WatchlistFields } from './watchlists.store.js';

const fields = (overrides: Partial<WatchlistFields> = {}): WatchlistFields => ({
  name: 'cmd', description: null, searchQuery: 'cb.urlver=1&q=process_name%3Acmd.exe', indexType: 'events',
  enabled: true, readonly: false, groupId: -1, allianceId: null, fromAlliance: false, ...overrides,
});

export function watchlistsStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('creates a watchlist with zeroed counters and reads it back', async () => {
    const store = new SqlWatchlistsStore(await fresh());
    const created = await store.create(fields({ description: 'shells' }), 1000);
    assert.deepEqual(created, {
      id: created.id, ...fields({ description: 'shells' }), dateAddedMs: 1000, lastHitMs: null, lastHitCount: 0,
      totalHits: 0, totalTags: 0, searchMs: null, matchCursor: null,
    });
    assert.deepEqual(await store.get(created.id), created);
    assert.equal(await store.get(created.id + 1), undefined);
  });

  it('takes the id asked for, refuses it when taken, and numbers later ones after it', async () => {
    const store = new SqlWatchlistsStore(await fresh());
    assert.equal((await store.create(fields(), 1, 2414)).id, 2414);
    await assert.rejects(store.create(fields({ name: 'again' }), 2, 2414), ConflictError);
    assert.equal((await store.create(fields(), 3)).id, 2415);
    assert.deepEqual((await store.list()).map((w) => w.id), [2414, 2415]);
  });

  it('changes only the fields given, and restarts matching when the search changes', async () => {
    const db = await fresh();
    const store = new SqlWatchlistsStore(db);
    const { id } = await store.create(fields(), 1);
    await db.run('UPDATE watchlists SET match_cursor = ? WHERE id = ?', ['segment:99', id]);
    const disabled = await store.update(id, { enabled: false });
    assert.deepEqual([disabled?.enabled, disabled?.name, disabled?.matchCursor], [false, 'cmd', 'segment:99']);
    const same = await store.update(id, { searchQuery: fields().searchQuery });
    assert.equal(same?.matchCursor, 'segment:99');
    const moved = await store.update(id, { searchQuery: 'q=process_name%3Apowershell.exe' });
    assert.deepEqual([moved?.searchQuery, moved?.matchCursor, moved?.enabled], ['q=process_name%3Apowershell.exe', null, false]);
    assert.equal(await store.update(id + 1, { enabled: true }), undefined);
  });

  it('deletes a watchlist', async () => {
    const store = new SqlWatchlistsStore(await fresh());
    const { id } = await store.create(fields(), 1);
    assert.equal(await store.delete(id), true);
    assert.equal(await store.delete(id), false);
    assert.equal(await store.get(id), undefined);
  });
}
