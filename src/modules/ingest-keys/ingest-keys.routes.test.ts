/**
 * Ingest keys through the API, on a real app and database: who may create, list and revoke them,
 * that a key is shown once and stored only hashed, and that a key opens nothing of the API.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, createUser, openAppDatabase, startTestApp, type TestApp } from '../../../test/support/app.js';

describe('ingest keys', () => {
  let test: TestApp;
  let groupId: number;
  let groupAdmin: string;
  before(async () => {
    test = await startTestApp();
    groupId = (await test.app.inject({ method: 'POST', url: '/api/group', headers: as(test.adminToken), payload: { name: 'Fleet', site_id: 1 } })).json().id;
    const team = (await test.app.inject({
      method: 'POST', url: '/api/team', headers: as(test.adminToken),
      payload: { name: 'Fleet admins', group_access: [{ group_id: groupId, access_category: 'Administrator' }, { group_id: 1, access_category: 'Viewer' }] },
    })).json();
    groupAdmin = await createUser(test, { username: 'fleet-admin', teams: [team.id] });
  });
  after(async () => test.close());

  const create = (group: number, token: string, payload: object = { name: 'winlogbeat' }) =>
    test.app.inject({ method: 'POST', url: `/api/v1/group/${group}/ingest_key`, headers: as(token), payload });

  it('a group administrator creates a key, shown once, and lists it without the key', async () => {
    const created = await create(groupId, groupAdmin);
    assert.equal(created.statusCode, 200, created.body);
    const key = created.json();
    assert.match(key.key, /^vik_[0-9a-f]{48}$/);
    assert.equal(key.group_id, groupId);
    assert.equal(key.name, 'winlogbeat');
    assert.equal(key.created_by, 'fleet-admin');
    assert.equal(key.revoked, null);

    const listed = await test.app.inject({ url: `/api/v1/group/${groupId}/ingest_key`, headers: as(groupAdmin) });
    assert.equal(listed.statusCode, 200);
    assert.deepEqual(listed.json(), [{ id: key.id, group_id: groupId, name: 'winlogbeat', created_by: 'fleet-admin', created: key.created, revoked: null }]);

    const db = openAppDatabase(test);
    const stored = JSON.stringify(await db.all('SELECT * FROM ingest_keys'));
    await db.close();
    assert.ok(!stored.includes(key.key.slice(4)), 'the database holds no copy of the key');
  });

  it('identifies the key\'s group in every form shippers send it, until it is revoked', async () => {
    const key = (await create(groupId, groupAdmin)).json();
    const keys = test.container.services.ingestKeys;
    const base64 = (text: string) => Buffer.from(text).toString('base64');
    for (const header of [`Bearer ${key.key}`, `ApiKey ${key.key}`, `ApiKey ${base64(`vigil:${key.key}`)}`, `Basic ${base64(`beats:${key.key}`)}`]) {
      assert.deepEqual(await keys.authenticate(header), { keyId: key.id, groupId }, header);
    }
    for (const header of [undefined, '', key.key, `Sensor ${key.key}`, `Bearer ${base64(`x:${key.key}`)}`, `Bearer vik_${'0'.repeat(48)}`]) {
      await assert.rejects(keys.authenticate(header), { code: 'unauthorized' }, String(header));
    }
    const revoked = await test.app.inject({ method: 'DELETE', url: `/api/v1/group/${groupId}/ingest_key/${key.id}`, headers: as(groupAdmin) });
    assert.equal(revoked.statusCode, 200);
    assert.deepEqual(revoked.json(), { result: 'success' });
    await assert.rejects(keys.authenticate(`Bearer ${key.key}`), { code: 'unauthorized' });
    const again = await test.app.inject({ method: 'DELETE', url: `/api/v1/group/${groupId}/ingest_key/${key.id}`, headers: as(groupAdmin) });
    assert.equal(again.statusCode, 404, 'revoked once');
    const listed = (await test.app.inject({ url: `/api/v1/group/${groupId}/ingest_key`, headers: as(groupAdmin) })).json();
    assert.ok(listed.find((k: { id: number }) => k.id === key.id).revoked, 'the revocation stays on record');
  });

  it('a key is no API token', async () => {
    const key = (await create(groupId, groupAdmin)).json();
    for (const headers of [as(key.key), { authorization: `Bearer ${key.key}` }]) {
      assert.equal((await test.app.inject({ url: '/api/info', headers })).statusCode, 401);
    }
  });

  it('only administrators of the group manage its keys; an unknown group is 404 to a global admin', async () => {
    const outsider = await createUser(test, { username: 'outsider' });
    assert.equal((await create(1, groupAdmin)).statusCode, 403, 'the fleet admin only views group 1');
    assert.equal((await create(groupId, outsider)).statusCode, 403);
    assert.equal((await test.app.inject({ url: `/api/v1/group/${groupId}/ingest_key`, headers: as(outsider) })).statusCode, 403);
    const key = (await create(groupId, groupAdmin)).json();
    const revoke = (group: number, token: string) =>
      test.app.inject({ method: 'DELETE', url: `/api/v1/group/${group}/ingest_key/${key.id}`, headers: as(token) });
    assert.equal((await revoke(groupId, outsider)).statusCode, 403);
    assert.equal((await revoke(1, test.adminToken)).statusCode, 404, 'a key is revoked only through its own group');
    assert.equal((await create(4242, test.adminToken)).statusCode, 404);
    assert.equal((await create(groupId, test.adminToken, { name: 'x'.repeat(201) })).statusCode, 400);
    assert.match((await create(groupId, test.adminToken, { key: 'chosen' })).json().key, /^vik_/, 'keys are drawn, never chosen');
    assert.equal((await test.app.inject({ method: 'POST', url: `/api/v1/group/${groupId}/ingest_key` })).statusCode, 401);
  });
});
