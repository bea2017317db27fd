/** The contract of TeamsStore, run against every dialect (teams.store.test.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import { ConflictError, InvalidRequestError } from '../../domain/errors.js';
import { SqlTeamsStore } from './teams.store.js';

export function teamsStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('creates a team with an entry for every group, "No Access" where nothing was granted', async () => {
    const teams = new SqlTeamsStore(await fresh());
    const team = await teams.create('analysts', [{ groupId: 1, accessCategory: 'Viewer' }]);
    assert.equal(team.name, 'analysts');
    assert.deepEqual(team.groupAccess, [{ groupId: 1, groupName: 'Default Group', accessCategory: 'Viewer' }]);
    assert.deepEqual(await teams.get(team.id), team);
    const none = await teams.create('nobodies', []);
    assert.deepEqual(none.groupAccess, [{ groupId: 1, groupName: 'Default Group', accessCategory: 'No Access' }]);
  });

  it('refuses a duplicate name and an unknown group, leaving nothing behind', async () => {
    const teams = new SqlTeamsStore(await fresh());
    await teams.create('analysts', []);
    await assert.rejects(teams.create('analysts', []), ConflictError);
    await assert.rejects(teams.create('ghosts', [{ groupId: 424242, accessCategory: 'Viewer' }]), InvalidRequestError);
    assert.deepEqual((await teams.list()).map((t) => t.name), ['analysts']);
  });

  it('renames, and changes access only for the groups listed', async () => {
    const teams = new SqlTeamsStore(await fresh());
    const team = await teams.create('analysts', [{ groupId: 1, accessCategory: 'Administrator' }]);
    const renamed = await teams.update(team.id, { name: 'hunters' });
    assert.equal(renamed?.name, 'hunters');
    assert.equal(renamed?.groupAccess[0]?.accessCategory, 'Administrator');
    const lowered = await teams.update(team.id, { grants: [{ groupId: 1, accessCategory: 'No Access' }] });
    assert.equal(lowered?.groupAccess[0]?.accessCategory, 'No Access');
    assert.equal(await teams.update(9999, { name: 'x' }), undefined);
    const other = await teams.create('other', []);
    await assert.rejects(teams.update(other.id, { name: 'hunters' }), ConflictError);
  });

  it('lists teams by id and deletes them', async () => {
    const teams = new SqlTeamsStore(await fresh());
    const a = await teams.create('a', []);
    const b = await teams.create('b', []);
    assert.deepEqual((await teams.list()).map((t) => t.id), [a.id, b.id]);
    assert.equal(await teams.delete(a.id), true);
    assert.equal(await teams.delete(a.id), false);
    assert.equal(await teams.get(a.id), undefined);
    assert.deepEqual((await teams.list()).map((t) => t.id), [b.id]);
  });

  it('names the ids that are not teams', async () => {
    const teams = new SqlTeamsStore(await fresh());
    const a = await teams.create('a', []);
    assert.deepEqual(await teams.missingIds([]), []);
    assert.deepEqual(await teams.missingIds([a.id, a.id]), []);
    assert.deepEqual(await teams.missingIds([a.id, 77, 78]), [77, 78]);
  });
}
