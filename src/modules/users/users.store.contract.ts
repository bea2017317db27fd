/**
 * The contract of UsersStore, run against every dialect (users.store.test.ts). Assertions speak
 * only of the interface, never of a dialect's SQL.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import { ConflictError, InvalidRequestError } from '../../domain/errors.js';
import { SqlTeamsStore } from '../teams/teams.store.js';
import { SqlUsersStore, type NewUser } from './users.store.js';

function newUser(username: string, overrides: Partial<NewUser> = {}): NewUser {
  return {
    username,
    firstName: 'First',
    lastName: 'Last',
    email: `${username}@example.com`,
    globalAdmin: false,
    passwordHash: null,
    tokenSalt: `salt-${username}`,
    tokenHash: `hash-${username}`,
    teamIds: [],
    ...overrides,
  };
}

export function usersStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('creates a user and finds it by username and by token hash', async () => {
    const users = new SqlUsersStore(await fresh());
    const created = await users.create(newUser('alice', { globalAdmin: true, passwordHash: 'scrypt$x' }));
    assert.equal(created.username, 'alice');
    assert.equal(created.globalAdmin, true);
    assert.equal(created.passwordHash, 'scrypt$x');
    assert.deepEqual(await users.findByUsername('alice'), created);
    assert.deepEqual(await users.findByTokenHash('hash-alice'), created);
    assert.equal(await users.findByUsername('bob'), undefined);
    assert.equal(await users.findByTokenHash('hash-bob'), undefined);
  });

  it('refuses a duplicate username with a ConflictError and keeps the first user', async () => {
    const users = new SqlUsersStore(await fresh());
    await users.create(newUser('alice'));
    await assert.rejects(users.create(newUser('alice', { tokenHash: 'other', email: 'x@y' })), ConflictError);
    assert.equal((await users.findByUsername('alice'))?.email, 'alice@example.com');
    assert.equal((await users.list()).length, 1);
  });

  it('keeps team memberships, ordered by team id, and rejects unknown teams', async () => {
    const db = await fresh();
    const teams = new SqlTeamsStore(db);
    const users = new SqlUsersStore(db);
    const red = await teams.create('red', []);
    const blue = await teams.create('blue', []);
    const user = await users.create(newUser('carol', { teamIds: [blue.id, red.id, blue.id] }));
    assert.deepEqual(user.teams, [{ id: red.id, name: 'red' }, { id: blue.id, name: 'blue' }]);
    await assert.rejects(users.create(newUser('dave', { teamIds: [9999] })), InvalidRequestError);
    assert.equal(await users.findByUsername('dave'), undefined, 'a failed create leaves nothing behind');
  });

  it('lists users ordered by username, with their teams', async () => {
    const db = await fresh();
    const team = await new SqlTeamsStore(db).create('ops', []);
    const users = new SqlUsersStore(db);
    await users.create(newUser('zed'));
    await users.create(newUser('amy', { teamIds: [team.id] }));
    const listed = await users.list();
    assert.deepEqual(listed.map((u) => u.username), ['amy', 'zed']);
    assert.deepEqual(listed[0]?.teams, [{ id: team.id, name: 'ops' }]);
    assert.deepEqual(listed[1]?.teams, []);
  });

  it('updates only the fields given and replaces memberships when teamIds is given', async () => {
    const db = await fresh();
    const team = await new SqlTeamsStore(db).create('ops', []);
    const users = new SqlUsersStore(db);
    await users.create(newUser('erin', { teamIds: [team.id] }));
    const renamed = await users.update('erin', { firstName: 'Erin', globalAdmin: true });
    assert.equal(renamed?.firstName, 'Erin');
    assert.equal(renamed?.lastName, 'Last');
    assert.equal(renamed?.globalAdmin, true);
    assert.deepEqual(renamed?.teams, [{ id: team.id, name: 'ops' }]);
    const moved = await users.update('erin', { teamIds: [], tokenHash: 'new-hash', tokenSalt: 'new-salt' });
    assert.deepEqual(moved?.teams, []);
    assert.equal((await users.findByTokenHash('new-hash'))?.username, 'erin');
    assert.equal(await users.findByTokenHash('hash-erin'), undefined);
    assert.equal(await users.update('nobody', { firstName: 'x' }), undefined);
  });

  it('deletes a user and says whether there was one', async () => {
    const users = new SqlUsersStore(await fresh());
    await users.create(newUser('fay'));
    assert.equal(await users.delete('fay'), true);
    assert.equal(await users.delete('fay'), false);
    assert.equal(await users.findByUsername('fay'), undefined);
  });

  it('counts global admins', async () => {
    const users = new SqlUsersStore(await fresh());
    assert.equal(await users.countGlobalAdmins(), 0);
    await users.create(newUser('a', { globalAdmin: true }));
    await users.create(newUser('b'));
    await users.create(newUser('c', { globalAdmin: true }));
    assert.equal(await users.countGlobalAdmins(), 2);
  });

  it('gives the group grants of every team the user is in', async () => {
    const db = await fresh();
    const teams = new SqlTeamsStore(db);
    const viewers = await teams.create('viewers', [{ groupId: 1, accessCategory: 'Viewer' }]);
    const admins = await teams.create('admins', [{ groupId: 1, accessCategory: 'Administrator' }]);
    const users = new SqlUsersStore(db);
    const user = await users.create(newUser('gus', { teamIds: [viewers.id, admins.id] }));
    const grants = await users.groupGrants(user.id);
    assert.deepEqual(
      grants.map((g) => g.accessCategory).sort(),
      ['Administrator', 'Viewer'],
    );
    assert.ok(grants.every((g) => g.groupId === 1));
    const loner = await users.create(newUser('hal'));
    assert.deepEqual(await users.groupGrants(loner.id), []);
  });
}
