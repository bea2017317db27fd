/**
 * Console login over the real app: the cookie's attributes, the CSRF rule for cookie-authenticated
 * writes (and none for API tokens), logout, and the session ending when its user is deleted or
 * their password changes, whichever way it is changed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';
import { routesWithPolicies } from '../../http/auth.js';

interface Login {
  cookie: string;
  setCookie: string;
  csrf: string;
}

async function login(test: TestApp, username: string, password: string): Promise<Login> {
  const answer = await test.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password } });
  assert.equal(answer.statusCode, 200, answer.body);
  const setCookie = String(answer.headers['set-cookie']);
  return { setCookie, cookie: setCookie.split(';')[0]!, csrf: (answer.json() as { csrf_token: string }).csrf_token };
}

function whoAmI(test: TestApp, cookie: string) {
  return test.app.inject({ url: '/api/auth/session', headers: { cookie } });
}

describe('console sessions', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp();
    await createUser(test, { username: 'alice', password: 'correct horse' });
  });
  after(() => test.close());

  it('logs in with a password: an HttpOnly, SameSite=Strict, Secure, expiring cookie and a CSRF token', async () => {
    const { setCookie, cookie, csrf } = await login(test, 'alice', 'correct horse');
    assert.match(cookie, /^vigil_session=[A-Za-z0-9_-]{43}$/);
    const attributes = setCookie.split('; ').slice(1).sort();
    assert.deepEqual(attributes, ['HttpOnly', 'Max-Age=43200', 'Path=/', 'SameSite=Strict', 'Secure']);
    assert.match(csrf, /^[0-9a-f]{64}$/);
    const session = await whoAmI(test, cookie);
    assert.equal(session.statusCode, 200);
    assert.deepEqual({ ...(session.json() as object), expires: undefined }, {
      username: 'alice', global_admin: false, authenticated_by: 'session', csrf_token: csrf, expires: undefined,
    });
    assert.equal((await test.app.inject({ url: '/api/info', headers: { cookie } })).statusCode, 200);
  });

  it('refuses a cookie-authenticated write without the CSRF token, before it changes anything', async () => {
    const { cookie, csrf } = await login(test, 'alice', 'correct horse');
    const change = (headers: Record<string, string>, first_name: string) =>
      test.app.inject({ method: 'PUT', url: '/api/user/alice', headers: { cookie, ...headers }, payload: { first_name } });
    const wrong: Record<string, string>[] = [{}, { 'x-csrf-token': 'f'.repeat(64) }, { 'x-csrf-token': csrf.slice(1) }];
    for (const headers of wrong) {
      const refused = await change(headers, 'Mallory');
      assert.equal(refused.statusCode, 403, JSON.stringify(headers));
      assert.equal((refused.json() as { reason: string }).reason, 'csrf_token_invalid');
    }
    const read = await test.app.inject({ url: '/api/user/alice', headers: { cookie } });
    assert.equal((read.json() as { first_name: string }).first_name, '', 'a read needs no CSRF token, and nothing changed');
    assert.equal((await change({ 'x-csrf-token': csrf }, 'Alice')).statusCode, 200);
  });

  it('holds the CSRF rule on every state-changing route, and a cookie opens no sensor route', async () => {
    const { cookie } = await login(test, 'alice', 'correct horse');
    const failures: string[] = [];
    const writes = routesWithPolicies(test.app).filter((r) => r.auth !== 'public' && !['GET', 'HEAD'].includes(r.method));
    assert.ok(writes.filter((r) => r.auth === 'user').length >= 50, `expected the whole API, found ${writes.length} routes`);
    for (const route of writes) {
      const url = route.url.replace(/:[^/]+/g, '1');
      const answer = await test.app.inject({ method: route.method as 'POST', url, headers: { cookie }, payload: {} });
      const expected = route.auth === 'user' ? 403 : 401;
      if (answer.statusCode !== expected) failures.push(`${route.method} ${route.url}: ${answer.statusCode}`);
    }
    assert.deepEqual(failures, []);
  });

  it('leaves API tokens as they were: no CSRF token, and a token wins over a cookie', async () => {
    const token = await createUser(test, { username: 'scripter', password: 'pw-scripter' });
    const changed = await test.app.inject({ method: 'PUT', url: '/api/user/scripter', headers: as(token), payload: { first_name: 'S' } });
    assert.equal(changed.statusCode, 200);
    const { cookie } = await login(test, 'alice', 'correct horse');
    const both = await test.app.inject({ url: '/api/auth/session', headers: { ...as(token), cookie } });
    assert.deepEqual(both.json(), { username: 'scripter', global_admin: false, authenticated_by: 'token' });
    const badToken = await test.app.inject({ url: '/api/info', headers: { ...as('0'.repeat(40)), cookie } });
    assert.equal(badToken.statusCode, 401, 'a wrong token is not rescued by a cookie');
  });

  it('answers a wrong password, an unknown user, a user without a password and a bad cookie 401', async () => {
    const attempts = [['alice', 'wrong'], ['nobody', 'correct horse'], ['admin', 'anything']] as const;
    for (const [username, password] of attempts) {
      const answer = await test.app.inject({
        method: 'POST', url: '/api/auth/login', payload: { username, password }, remoteAddress: `10.0.0.${username.length}`,
      });
      assert.equal(answer.statusCode, 401, username);
      assert.equal(answer.headers['set-cookie'], undefined);
    }
    for (const cookie of ['vigil_session=' + 'A'.repeat(43), 'vigil_session=short', 'other=1']) {
      assert.equal((await whoAmI(test, cookie)).statusCode, 401, cookie);
    }
  });

  it('logs out: the cookie is dropped and the session no longer works', async () => {
    const { cookie, csrf } = await login(test, 'alice', 'correct horse');
    assert.equal((await test.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie } })).statusCode, 403);
    const out = await test.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie, 'x-csrf-token': csrf } });
    assert.equal(out.statusCode, 200);
    assert.match(String(out.headers['set-cookie']), /^vigil_session=; Max-Age=0; /);
    assert.equal((await whoAmI(test, cookie)).statusCode, 401);
  });

  it('ends the session when the password changes through the API', async () => {
    await createUser(test, { username: 'bob', password: 'first-pw' });
    const { cookie } = await login(test, 'bob', 'first-pw');
    const changed = await test.app.inject({
      method: 'PUT', url: '/api/user/bob', headers: as(test.adminToken), payload: { password: 'second-pw', confirm_password: 'second-pw' },
    });
    assert.equal(changed.statusCode, 200);
    assert.equal((await whoAmI(test, cookie)).statusCode, 401);
    await login(test, 'bob', 'second-pw');
  });

  it('ends the session when the password is set from the shell (vigil user passwd)', async () => {
    await createUser(test, { username: 'carol', password: 'first-pw' });
    const { cookie } = await login(test, 'carol', 'first-pw');
    await test.container.services.users.setPasswordFromShell('carol', 'from-the-shell');
    assert.equal((await whoAmI(test, cookie)).statusCode, 401);
    await login(test, 'carol', 'from-the-shell');
  });

  it('ends the session when the user is deleted', async () => {
    await createUser(test, { username: 'dave', password: 'dave-pw' });
    const { cookie } = await login(test, 'dave', 'dave-pw');
    assert.equal((await test.app.inject({ method: 'DELETE', url: '/api/user/dave', headers: as(test.adminToken) })).statusCode, 200);
    assert.equal((await whoAmI(test, cookie)).statusCode, 401);
  });
});

describe('console sessions on plain HTTP', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp({ tls: false, sessionMaxHours: 2 });
    await createUser(test, { username: 'erin', password: 'erin-pw' });
  });
  after(() => test.close());

  it('sets the cookie without Secure, which a browser would drop on http://', async () => {
    const { setCookie } = await login(test, 'erin', 'erin-pw');
    assert.deepEqual(setCookie.split('; ').slice(1).sort(), ['HttpOnly', 'Max-Age=7200', 'Path=/', 'SameSite=Strict']);
  });
});

describe('failed console logins', () => {
  let test: TestApp;
  const logLines: string[] = [];
  before(async () => {
    test = await startTestApp({}, { logger: { level: 'warn', stream: { write: (line: string) => void logLines.push(line) } } });
    await createUser(test, { username: 'frank', password: 'frank-pw' });
  });
  after(() => test.close());

  const attempt = (username: string, password: string, remoteAddress: string) =>
    test.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password }, remoteAddress });

  it('are logged at warn with username and address, never the password', async () => {
    assert.equal((await attempt('frank', 'not-franks-pw', '203.0.113.5')).statusCode, 401);
    const entries = logLines.map((line) => JSON.parse(line) as { level: number; msg: string; username?: string; address?: string });
    assert.deepEqual(
      entries.filter((e) => e.msg === 'login failed').map((e) => [e.level, e.username, e.address]),
      [[40, 'frank', '203.0.113.5']],
    );
    assert.doesNotMatch(logLines.join(''), /not-franks-pw/);
  });

  it('slow down one username from any address: 429 with Retry-After in the Carbon Black error shape', async () => {
    for (let i = 1; i <= 4; i++) assert.equal((await attempt('grace', 'guess', `198.51.100.${i}`)).statusCode, 401);
    const slowed = await attempt('grace', 'guess', '198.51.100.99');
    assert.equal(slowed.statusCode, 429);
    assert.equal(slowed.headers['retry-after'], '1');
    assert.deepEqual(Object.keys(slowed.json() as object), ['reason', 'message']);
    assert.equal((slowed.json() as { reason: string }).reason, 'too_many_requests');
  });

  it('slow down one address trying many usernames, and let the right password through after the wait', async () => {
    for (let i = 1; i <= 4; i++) assert.equal((await attempt(`user${i}`, 'guess', '192.0.2.50')).statusCode, 401);
    assert.equal((await attempt('frank', 'frank-pw', '192.0.2.50')).statusCode, 429, 'even with the right password');
    assert.equal((await attempt('frank', 'frank-pw', '192.0.2.51')).statusCode, 200, 'from elsewhere frank is not slowed');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal((await attempt('frank', 'frank-pw', '192.0.2.50')).statusCode, 200);
  });

  it('slow down attempts sent all at once', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, () => attempt('heidi', 'guess', '192.0.2.60')));
    const statuses = answers.map((a) => a.statusCode).sort();
    assert.deepEqual(statuses, [...Array(4).fill(401), ...Array(8).fill(429)]);
  });
});
