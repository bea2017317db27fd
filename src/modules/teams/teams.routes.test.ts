/** Teams over HTTP (reference core §8), and the access they grant. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';

describe('teams API', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp();
  });
  after(() => test.close());

  const admin = () => as(test.adminToken);

  it('creates a team and answers the full team object', async () => {
    const created = await test.app.inject({
      method: 'POST', url: '/api/team', headers: admin(),
      payload: { name: 'Administrators', group_access: [{ group_id: 1, group_name: 'Default Group', access_category: 'Administrator' }] },
    });
    assert.equal(created.statusCode, 200);
    const team = created.json();
    assert.equal(typeof team.id, 'number');
    assert.deepEqual(team, {
      id: team.id, name: 'Administrators',
      group_access: [{ group_id: 1, group_name: 'Default Group', access_category: 'Administrator' }],
    });
    const read = await test.app.inject({ url: `/api/team/${team.id}`, headers: admin() });
    assert.deepEqual(read.json(), team);
    const list = await test.app.inject({ url: '/api/teams', headers: admin() });
    assert.ok((list.json() as { id: number }[]).some((t) => t.id === team.id));
  });

  it('updates and deletes, with 404 for unknown ids and 409 for a taken name', async () => {
    const a = (await test.app.inject({ method: 'POST', url: '/api/team', headers: admin(), payload: { name: 'A' } })).json();
    await test.app.inject({ method: 'POST', url: '/api/team', headers: admin(), payload: { name: 'B' } });
    const put = await test.app.inject({
      method: 'PUT', url: `/api/team/${a.id}`, headers: admin(),
      payload: { ...a, group_access: [{ group_id: 1, access_category: 'Viewer' }] },
    });
    assert.deepEqual(put.json(), { result: 'success' });
    const read = (await test.app.inject({ url: `/api/team/${a.id}`, headers: admin() })).json();
    assert.equal(read.name, 'A');
    assert.equal(read.group_access[0].access_category, 'Viewer');
    const taken = await test.app.inject({ method: 'PUT', url: `/api/team/${a.id}`, headers: admin(), payload: { name: 'B' } });
    assert.equal(taken.statusCode, 409);
    assert.equal((await test.app.inject({ method: 'PUT', url: '/api/team/9999', headers: admin(), payload: { name: 'Z' } })).statusCode, 404);
    assert.deepEqual((await test.app.inject({ method: 'DELETE', url: `/api/team/${a.id}`, headers: admin() })).json(), { result: 'success' });
    assert.equal((await test.app.inject({ url: `/api/team/${a.id}`, headers: admin() })).statusCode, 404);
    assert.equal((await test.app.inject({ url: '/api/team/not-a-number', headers: admin() })).statusCode, 400);
  });

  it('rejects an unknown access category or group with a 400 naming the field', async () => {
    const badCategory = await test.app.inject({
      method: 'POST', url: '/api/team', headers: admin(),
      payload: { name: 'C', group_access: [{ group_id: 1, access_category: 'Superuser' }] },
    });
    assert.equal(badCategory.statusCode, 400);
    assert.match(badCategory.json().message, /access_category/);
    const badGroup = await test.app.inject({
      method: 'POST', url: '/api/team', headers: admin(),
      payload: { name: 'D', group_access: [{ group_id: 4242, access_category: 'Viewer' }] },
    });
    assert.equal(badGroup.statusCode, 400);
    assert.match(badGroup.json().message, /group_access/);
  });

  it('is for global admins only', async () => {
    const token = await createUser(test, { username: 'teamless' });
    const responses = [
      await test.app.inject({ url: '/api/teams', headers: as(token) }),
      await test.app.inject({ method: 'POST', url: '/api/team', headers: as(token), payload: { name: 'E' } }),
      await test.app.inject({ url: '/api/team/1', headers: as(token) }),
    ];
    assert.deepEqual(responses.map((r) => r.statusCode), [403, 403, 403]);
  });
});
