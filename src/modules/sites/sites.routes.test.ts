/** Sites over HTTP (reference core §7.1). */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';

describe('sites API', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp();
  });
  after(() => test.close());

  const admin = () => as(test.adminToken);
  const createSite = async (name: string): Promise<number> => {
    const created = await test.app.inject({ method: 'POST', url: '/api/site', headers: admin(), payload: { id: null, name } });
    assert.equal(created.statusCode, 200, created.body);
    return (created.json() as { id: number }).id;
  };

  it('has the Default Site holding the Default Group, read as a one-element array', async () => {
    const read = await test.app.inject({ url: '/api/site/1', headers: admin() });
    assert.equal(read.statusCode, 200);
    assert.deepEqual(read.json(), [{ id: 1, name: 'Default Site', group_ids: [1] }]);
  });

  it('creates a site answering only its id, lists it, and shows the groups placed in it', async () => {
    const created = await test.app.inject({ method: 'POST', url: '/api/site', headers: admin(), payload: { id: null, name: 'Branch' } });
    assert.equal(created.statusCode, 200);
    const { id } = created.json();
    assert.deepEqual(created.json(), { id });
    const group = (await test.app.inject({ method: 'POST', url: '/api/group', headers: admin(), payload: { name: 'Branch PCs', site_id: id } })).json();
    assert.deepEqual((await test.app.inject({ url: `/api/site/${id}`, headers: admin() })).json(), [{ id, name: 'Branch', group_ids: [group.id] }]);
    const list = await test.app.inject({ url: '/api/site', headers: admin() });
    assert.equal(list.statusCode, 200);
    assert.deepEqual((list.json() as { id: number }[]).find((s) => s.id === id), { id, name: 'Branch', group_ids: [group.id] });
  });

  it('renames with the record as read, answering success, and 409 for a taken name', async () => {
    const id = await createSite('Lab');
    const [record] = (await test.app.inject({ url: `/api/site/${id}`, headers: admin() })).json();
    const put = await test.app.inject({ method: 'PUT', url: `/api/site/${id}`, headers: admin(), payload: { ...record, name: 'Test lab' } });
    assert.equal(put.statusCode, 200);
    assert.deepEqual(put.json(), { result: 'success' });
    assert.equal((await test.app.inject({ url: `/api/site/${id}`, headers: admin() })).json()[0].name, 'Test lab');
    const taken = await test.app.inject({ method: 'PUT', url: `/api/site/${id}`, headers: admin(), payload: { name: 'Default Site' } });
    assert.equal(taken.statusCode, 409);
    const duplicate = await test.app.inject({ method: 'POST', url: '/api/site', headers: admin(), payload: { name: 'Test lab' } });
    assert.equal(duplicate.statusCode, 409);
  });

  it('deletes an empty site, but not one holding groups nor the Default Site', async () => {
    const id = await createSite('Warehouse');
    const group = (await test.app.inject({ method: 'POST', url: '/api/group', headers: admin(), payload: { name: 'Scanners', site_id: id } })).json();
    const inUse = await test.app.inject({ method: 'DELETE', url: `/api/site/${id}`, headers: admin() });
    assert.equal(inUse.statusCode, 409);
    await test.app.inject({ method: 'PUT', url: `/api/group/${group.id}`, headers: admin(), payload: { site_id: 1 } });
    const deleted = await test.app.inject({ method: 'DELETE', url: `/api/site/${id}`, headers: admin() });
    assert.equal(deleted.statusCode, 200);
    assert.deepEqual(deleted.json(), { result: 'success' });
    assert.equal((await test.app.inject({ url: `/api/site/${id}`, headers: admin() })).statusCode, 404);
    assert.equal((await test.app.inject({ method: 'DELETE', url: `/api/site/${id}`, headers: admin() })).statusCode, 404);
    assert.equal((await test.app.inject({ method: 'DELETE', url: '/api/site/1', headers: admin() })).statusCode, 403);
  });

  it('answers 404 for an unknown id, 400 for a bad id or body, and 401 without a token', async () => {
    assert.equal((await test.app.inject({ url: '/api/site/4242', headers: admin() })).statusCode, 404);
    assert.equal((await test.app.inject({ method: 'PUT', url: '/api/site/4242', headers: admin(), payload: { name: 'x' } })).statusCode, 404);
    assert.equal((await test.app.inject({ url: '/api/site/abc', headers: admin() })).statusCode, 400);
    const noName = await test.app.inject({ method: 'POST', url: '/api/site', headers: admin(), payload: { id: null } });
    assert.equal(noName.statusCode, 400);
    assert.match(noName.json().message, /name/);
    assert.equal((await test.app.inject({ url: '/api/site' })).statusCode, 401);
  });

  it('lets other users read sites, seeing only the groups they may view, and change none', async () => {
    const id = await createSite('Plant');
    const shared = (await test.app.inject({ method: 'POST', url: '/api/group', headers: admin(), payload: { name: 'Plant shared', site_id: id } })).json();
    await test.app.inject({ method: 'POST', url: '/api/group', headers: admin(), payload: { name: 'Plant secret', site_id: id } });
    const team = (await test.app.inject({
      method: 'POST', url: '/api/team', headers: admin(),
      payload: { name: 'Plant team', group_access: [{ group_id: shared.id, access_category: 'Viewer' }] },
    })).json();
    const token = await createUser(test, { username: 'operator', teams: [team.id] });

    const read = await test.app.inject({ url: `/api/site/${id}`, headers: as(token) });
    assert.equal(read.statusCode, 200);
    assert.deepEqual(read.json(), [{ id, name: 'Plant', group_ids: [shared.id] }]);
    const writes = [
      await test.app.inject({ method: 'POST', url: '/api/site', headers: as(token), payload: { name: 'Mine' } }),
      await test.app.inject({ method: 'PUT', url: `/api/site/${id}`, headers: as(token), payload: { name: 'Renamed' } }),
      await test.app.inject({ method: 'DELETE', url: `/api/site/${id}`, headers: as(token) }),
    ];
    assert.deepEqual(writes.map((r) => r.statusCode), [403, 403, 403]);
  });
});
