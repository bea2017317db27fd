/** The contract of DetectionActionsStore, run against every dialect (detection-actions.store.test.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import { ConflictError, NotFoundError } from '../../domain/errors.js';
import { SqlDetectionActionsStore, type ActionOwner } from './detection-actions.store.js';
import { SqlWatchlistsStore } from './watchlists.store.js';

async function watchlist(db: SqlDatabase): Promise<ActionOwner> {
  const created = await new SqlWatchlistsStore(db).create({
    name: 'w', description: null, searchQuery: 'q=x', indexType: 'events', enabled: true, readonly: false, groupId: -1,
    allianceId: null, fromAlliance: false,
  }, 1);
  return { kind: 'watchlist', id: created.id };
}

export function detectionActionsStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('keeps one action of each type per owner', async () => {
    const db = await fresh();
    const store = new SqlDetectionActionsStore(db);
    const owner = await watchlist(db);
    const other = await watchlist(db);
    const email = await store.create(owner, 0, '{"email_recipients":[1]}');
    const alert = await store.create(owner, 3, null);
    await store.create(other, 3, null);
    await assert.rejects(store.create(owner, 3, 'again'), ConflictError);
    assert.deepEqual(await store.list(owner), [email, alert]);
    assert.deepEqual(email, { id: email.id, owner, actionType: 0, actionData: '{"email_recipients":[1]}' });
    await assert.rejects(store.create({ kind: 'watchlist', id: 999 }, 3, null), NotFoundError);
    await assert.rejects(store.create({ kind: 'feed', id: 999 }, 3, null), NotFoundError);
  });

  it('changes, deletes and deletes by type, only among the owner\'s actions', async () => {
    const db = await fresh();
    const store = new SqlDetectionActionsStore(db);
    const owner = await watchlist(db);
    const other = await watchlist(db);
    const syslog = await store.create(owner, 1, 'a');
    assert.deepEqual(await store.update(owner, syslog.id, { actionData: null }), { ...syslog, actionData: null });
    assert.deepEqual(await store.update(owner, syslog.id, { actionType: 2 }), { ...syslog, actionType: 2, actionData: null });
    assert.equal(await store.update(other, syslog.id, { actionType: 3 }), undefined);
    await store.create(owner, 3, null);
    await assert.rejects(store.update(owner, syslog.id, { actionType: 3 }), ConflictError);
    assert.equal(await store.delete(other, syslog.id), false);
    assert.equal(await store.delete(owner, syslog.id), true);
    assert.equal(await store.deleteType(owner, 3), true);
    assert.equal(await store.deleteType(owner, 3), false);
    assert.deepEqual(await store.list(owner), []);
  });

  it('goes with its watchlist', async () => {
    const db = await fresh();
    const store = new SqlDetectionActionsStore(db);
    const owner = await watchlist(db);
    await store.create(owner, 3, null);
    await new SqlWatchlistsStore(db).delete(owner.id);
    assert.deepEqual(await store.list(owner), []);
  });
}
