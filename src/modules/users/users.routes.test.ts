/** Users over HTTP, as cbapi and the reference (core §8) use them. */
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';

describe('users API', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp();
  });
  after(() => test.close());

  const inject = (options: InjectOptions) => test.app.inject(options);

  it('creates a user the way cbapi does and reads it back with a working token', async () => {
    const team = (await inject({ method: 'POST', url: '/api/team', headers: as(test.adminToken), payload: { name: 'Analysts' } })).json();
    const created = await inject({
      method: 'POST',
      url: '/api/user',
      headers: as(test.adminToken),
      payload: {
        email: 'jgarman@example.com', first_name: 'Jason', global_admin: false, last_name: 'Garman',
        password: 'cbisawesome', teams: [team.id], username: 'jgarman',
      },
    });
    assert.equal(created.statusCode, 200);
    assert.deepEqual(created.json(), { result: 'success' });

    const read = await inject({ url: '/api/user/jgarman', headers: as(test.adminToken) });
    assert.equal(read.statusCode, 200);
    const user = read.json();
    assert.match(user.auth_token, /^[0-9a-f]{40}$/);
    assert.deepEqual({ ...user, auth_token: undefined }, {
      username: 'jgarman', first_name: 'Jason', last_name: 'Garman', email: 'jgarman@example.com',
      global_admin: false, teams: [{ id: team.id, name: 'Analysts' }], auth_token: undefined,
    });
    const self = await inject({ url: '/api/user/jgarman', headers: as(user.auth_token) });
    assert.equal(self.statusCode, 200);
    assert.equal(self.json().auth_token, user.auth_token, 'the token is stable across reads');
  });

  it('answers 409 for a duplicate username', async () => {
    await createUser(test, { username: 'dup' });
    const again = await inject({ method: 'POST', url: '/api/user', headers: as(test.adminToken), payload: { username: 'dup' } });
    assert.equal(again.statusCode, 409);
    assert.match(again.json().message, /dup already exists/);
  });

  it('lists users without their tokens', async () => {
    const list = await inject({ url: '/api/users', headers: as(test.adminToken) });
    assert.equal(list.statusCode, 200);
    const users = list.json() as Record<string, unknown>[];
    assert.ok(users.some((u) => u.username === 'admin' && u.global_admin === true));
    assert.ok(users.every((u) => !('auth_token' in u)));
  });

  it('updates with the record as read (cbapi PUT) and keeps what was not sent', async () => {
    await createUser(test, { username: 'upd' });
    const record = (await inject({ url: '/api/user/upd', headers: as(test.adminToken) })).json();
    const put = await inject({
      method: 'PUT', url: '/api/user/upd', headers: as(test.adminToken),
      payload: { ...record, id: 'upd', first_name: 'Up', email: 'up@example.com' },
    });
    assert.equal(put.statusCode, 200);
    assert.deepEqual(put.json(), { result: 'success' });
    const after = (await inject({ url: '/api/user/upd', headers: as(test.adminToken) })).json();
    assert.equal(after.first_name, 'Up');
    assert.equal(after.email, 'up@example.com');
    assert.equal(after.auth_token, record.auth_token);
    const renamed = await inject({ method: 'PUT', url: '/api/user/upd', headers: as(test.adminToken), payload: { username: 'other' } });
    assert.equal(renamed.statusCode, 400);
  });

  it('deletes a user, whose token then stops working', async () => {
    const token = await createUser(test, { username: 'gone' });
    const deleted = await inject({ method: 'DELETE', url: '/api/user/gone', headers: as(test.adminToken) });
    assert.deepEqual(deleted.json(), { result: 'success' });
    assert.equal((await inject({ url: '/api/info', headers: as(token) })).statusCode, 401);
    assert.equal((await inject({ url: '/api/user/gone', headers: as(test.adminToken) })).statusCode, 404);
    assert.equal((await inject({ method: 'DELETE', url: '/api/user/gone', headers: as(test.adminToken) })).statusCode, 404);
  });

  it('resets a token: the new one works and the old one is refused', async () => {
    const old = await createUser(test, { username: 'rotor' });
    const reset = await inject({ method: 'POST', url: '/api/v1/user/rotor/token', headers: as(old) });
    assert.equal(reset.statusCode, 200);
    const fresh = reset.json().auth_token as string;
    assert.match(fresh, /^[0-9a-f]{40}$/);
    assert.notEqual(fresh, old);
    assert.equal((await inject({ url: '/api/info', headers: as(old) })).statusCode, 401);
    assert.equal((await inject({ url: '/api/info', headers: as(fresh) })).statusCode, 200);
  });

  it('lets a non-admin read and edit only themself, never their teams or admin flag', async () => {
    const token = await createUser(test, { username: 'plain', password: 'first-pw' });
    await createUser(test, { username: 'neighbour' });
    const denied = [
      await inject({ url: '/api/users', headers: as(token) }),
      await inject({ url: '/api/user/neighbour', headers: as(token) }),
      await inject({ method: 'POST', url: '/api/user', headers: as(token), payload: { username: 'sneaky' } }),
      await inject({ method: 'DELETE', url: '/api/user/neighbour', headers: as(token) }),
      await inject({ method: 'POST', url: '/api/v1/user/neighbour/token', headers: as(token) }),
      await inject({ method: 'PUT', url: '/api/user/plain', headers: as(token), payload: { global_admin: true } }),
    ];
    assert.deepEqual(denied.map((r) => r.statusCode), [403, 403, 403, 403, 403, 403]);
    const own = await inject({ method: 'PUT', url: '/api/user/plain', headers: as(token), payload: { last_name: 'Person' } });
    assert.equal(own.statusCode, 200);
    assert.equal((await inject({ url: '/api/user/plain', headers: as(token) })).json().last_name, 'Person');
    const wrongPassword = await inject({
      method: 'PUT', url: '/api/user/plain', headers: as(token), payload: { password: 'new-pw', current_password: 'nope' },
    });
    assert.equal(wrongPassword.statusCode, 400);
    assert.match(wrongPassword.json().message, /current_password/);
    const rightPassword = await inject({
      method: 'PUT', url: '/api/user/plain', headers: as(token), payload: { password: 'new-pw', current_password: 'first-pw' },
    });
    assert.equal(rightPassword.statusCode, 200);
  });

  it('never removes the last global admin', async () => {
    const demote = await inject({ method: 'PUT', url: '/api/user/admin', headers: as(test.adminToken), payload: { global_admin: false } });
    assert.equal(demote.statusCode, 409);
    const remove = await inject({ method: 'DELETE', url: '/api/user/admin', headers: as(test.adminToken) });
    assert.equal(remove.statusCode, 409);
    await createUser(test, { username: 'second-admin', global_admin: true });
    const demoteNow = await inject({ method: 'PUT', url: '/api/user/second-admin', headers: as(test.adminToken), payload: { global_admin: false } });
    assert.equal(demoteNow.statusCode, 200);
  });

  it('rejects bad input with a 400 that names the field', async () => {
    const cases = [
      { payload: { username: 'has space' }, field: /username/ },
      { payload: { username: 'ok1', global_admin: 'maybe' }, field: /global_admin/ },
      { payload: { username: 'ok2', teams: [424242] }, field: /teams/ },
      { payload: { username: 'ok3', password: 'a', confirm_password: 'b' }, field: /confirm_password/ },
      { payload: { first_name: 'no username' }, field: /username/ },
    ];
    for (const { payload, field } of cases) {
      const response = await inject({ method: 'POST', url: '/api/user', headers: as(test.adminToken), payload });
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assert.equal(response.json().reason, 'invalid_request');
      assert.match(response.json().message, field);
    }
    assert.equal((await inject({ url: '/api/user/ok1', headers: as(test.adminToken) })).statusCode, 404);
  });
});
