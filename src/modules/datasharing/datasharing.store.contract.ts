/** The contract of DataSharingStore, run against every dialect (datasharing.store.test.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import { ConflictError, NotFoundError } from '../../domain/errors.js';
import { SqlGroupsStore } from '../groups/groups.store.js';
import { SqlDataSharingStore } from './datasharing.store.js';

export function dataSharingStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('keeps configurations per group, in id order, each readable only through its own group', async () => {
    const db = await fresh();
    const sharing = new SqlDataSharingStore(db);
    const other = await new SqlGroupsStore(db).create({ name: 'Other', siteId: 1, settings: {}, teamGrants: [] });
    assert.deepEqual(await sharing.list(1), []);
    const bin = await sharing.create(1, 'VIRUSTOTAL', 'BIN');
    const tic = await sharing.create(1, 'BIT9', 'TIC');
    const elsewhere = await sharing.create(other.id, 'VIRUSTOTAL', 'BIN');
    assert.deepEqual(bin, { id: bin.id, groupId: 1, who: 'VIRUSTOTAL', what: 'BIN' });
    assert.deepEqual(await sharing.list(1), [bin, tic]);
    assert.deepEqual(await sharing.list(other.id), [elsewhere]);
    assert.deepEqual(await sharing.get(1, tic.id), tic);
    assert.equal(await sharing.get(other.id, tic.id), undefined);
  });

  it('refuses the same pair twice in a group, and an unknown group', async () => {
    const sharing = new SqlDataSharingStore(await fresh());
    await sharing.create(1, 'VIRUSTOTAL', 'BIN');
    await assert.rejects(sharing.create(1, 'VIRUSTOTAL', 'BIN'), ConflictError);
    await assert.rejects(sharing.create(999, 'VIRUSTOTAL', 'BIN'), NotFoundError);
  });

  it('deletes one configuration or all of a group, leaving other groups alone', async () => {
    const db = await fresh();
    const sharing = new SqlDataSharingStore(db);
    const other = await new SqlGroupsStore(db).create({ name: 'Other', siteId: 1, settings: {}, teamGrants: [] });
    const bin = await sharing.create(1, 'VIRUSTOTAL', 'BIN');
    await sharing.create(1, 'BIT9', 'TIC');
    const kept = await sharing.create(other.id, 'BIT9', 'BIN');
    assert.equal(await sharing.delete(other.id, bin.id), false, 'not through another group');
    assert.equal(await sharing.delete(1, bin.id), true);
    assert.equal(await sharing.delete(1, bin.id), false);
    assert.equal(await sharing.deleteAll(1), 1);
    assert.deepEqual(await sharing.list(1), []);
    assert.deepEqual(await sharing.list(other.id), [kept]);
  });

  it('forgets a group\'s configurations with the group', async () => {
    const db = await fresh();
    const groups = new SqlGroupsStore(db);
    const sharing = new SqlDataSharingStore(db);
    const doomed = await groups.create({ name: 'Doomed', siteId: 1, settings: {}, teamGrants: [] });
    await sharing.create(doomed.id, 'VIRUSTOTAL', 'BIN');
    assert.equal(await groups.delete(doomed.id), true);
    assert.deepEqual(await sharing.list(doomed.id), []);
  });
}
