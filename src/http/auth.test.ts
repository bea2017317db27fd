/**
 * Every /api route refuses a request without a valid X-Auth-Token. The routes are taken from the
 * published OpenAPI document, so a route added later is covered without touching this test
 * (auth-spellings.test.ts walks every registered route, spelled every way, over a real socket).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, startTestApp, type TestApp } from '../../test/support/app.js';
import { routesWithPolicies } from './auth.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

describe('authentication', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp();
  });
  after(() => test.close());

  /** Under /api, only the console's login is public: its password is the credential. */
  const PUBLIC_API_ROUTES = ['POST /api/auth/login'];

  async function apiRoutes(): Promise<{ method: string; url: string }[]> {
    const publicRoutes = new Set(routesWithPolicies(test.app).filter((r) => r.auth === 'public').map((r) => `${r.method} ${r.url}`));
    const document = (await test.app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<string, Partial<Record<(typeof METHODS)[number], unknown>>>;
    };
    return Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/api'))
      .flatMap(([path, operations]) =>
        METHODS.filter((m) => operations[m] && !publicRoutes.has(`${m.toUpperCase()} ${path}`)).map((method) => ({
          method: method.toUpperCase(),
          url: path.replace(/\{[^}]+\}/g, '1'),
        })),
      );
  }

  it('has no public /api route but the login', () => {
    const publicApi = routesWithPolicies(test.app).filter((r) => r.auth === 'public' && r.url.startsWith('/api'));
    assert.deepEqual(publicApi.map((r) => `${r.method} ${r.url}`), PUBLIC_API_ROUTES);
  });

  it('answers 401 with the Carbon Black page on every /api route, without or with a wrong token', async () => {
    const routes = await apiRoutes();
    assert.ok(routes.length >= 20, `expected the whole API, found ${routes.length} routes`);
    for (const { method, url } of routes) {
      for (const headers of [{}, as('0'.repeat(40)), as('not-a-token'), { 'x-auth-token': '' }]) {
        const response = await test.app.inject({ method: method as 'GET', url, headers, payload: method === 'GET' ? undefined : {} });
        assert.equal(response.statusCode, 401, `${method} ${url} with ${JSON.stringify(headers)}`);
        assert.match(response.body, /<title>401 Unauthorized<\/title>/);
      }
    }
  });

  it('refuses unknown /api paths without a token before revealing whether they exist', async () => {
    assert.equal((await test.app.inject({ url: '/api/v1/nothing-here' })).statusCode, 401);
    assert.equal((await test.app.inject({ url: '/api/v1/nothing-here', headers: as(test.adminToken) })).statusCode, 404);
  });

  it('accepts the token in any header case, with surrounding spaces trimmed', async () => {
    const response = await test.app.inject({ url: '/api/info', headers: { 'X-AUTH-TOKEN': ` ${test.adminToken} ` } });
    assert.equal(response.statusCode, 200);
  });

  it('does not accept a token that differs in one character', async () => {
    const last = test.adminToken.at(-1) === '0' ? '1' : '0';
    const response = await test.app.inject({ url: '/api/info', headers: as(test.adminToken.slice(0, -1) + last) });
    assert.equal(response.statusCode, 401);
  });
});
