/**
 * Every route gets a policy when it is registered, secure by default: /api needs a user token,
 * /sensor a sensor credential, anything else must say what it needs or the app does not start.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { UnauthorizedError } from '../domain/errors.js';
import type { Principal } from '../domain/permissions.js';
import { registerAuthentication, routesWithPolicies } from './auth.js';
import { registerErrorHandling } from './error-handler.js';
import { declareScopePolicy, looksLikeApiPath, MissingRoutePolicyError } from './route-policy.js';

const refuseAll = { authenticate: async () => Promise.reject(new UnauthorizedError()) };

function bareApp() {
  const app = Fastify();
  registerErrorHandling(app);
  registerAuthentication(app, { users: refuseAll as { authenticate(): Promise<Principal> }, sensors: refuseAll as never, sessions: refuseAll as never });
  return app;
}

describe('route policies', () => {
  it('refuses a route outside /api and /sensor that says nothing', () => {
    const app = bareApp();
    assert.throws(() => app.get('/metrics', () => 'secret'), MissingRoutePolicyError);
  });

  it('stops the start when a plugin adds such a route', async () => {
    const app = bareApp();
    await assert.rejects(async () => {
      await app.register(async (plugin) => {
        plugin.get('/status', () => 'ok');
      });
    }, /GET \/status has no authentication policy/);
  });

  it('gives /api routes the user policy and /sensor routes the sensor policy unless they say otherwise', async () => {
    const app = bareApp();
    app.get('/api/v1/thing', () => 'data');
    app.post('/sensor/v1/thing', () => 'data');
    app.get('/api/v1/open', { config: { auth: 'public' } }, () => 'open');
    await app.register(async (docs) => {
      declareScopePolicy(docs, 'public');
      docs.get('/manual', () => 'manual');
    });
    await app.ready();
    const policies = Object.fromEntries(routesWithPolicies(app).map((r) => [`${r.method} ${r.url}`, r.auth]));
    assert.deepEqual(policies, {
      'GET /api/v1/thing': 'user', 'HEAD /api/v1/thing': 'user', 'POST /sensor/v1/thing': 'sensor',
      'GET /api/v1/open': 'public', 'HEAD /api/v1/open': 'public', 'GET /manual': 'public', 'HEAD /manual': 'public',
    });
    assert.equal((await app.inject({ url: '/api/v1/thing' })).statusCode, 401);
    assert.equal((await app.inject({ method: 'POST', url: '/sensor/v1/thing' })).statusCode, 401);
    assert.equal((await app.inject({ url: '/api/v1/open' })).statusCode, 200);
    assert.equal((await app.inject({ url: '/manual' })).statusCode, 200);
    await app.close();
  });

  it('refuses, rather than serves, a route registered before authentication was', async () => {
    const app = Fastify();
    registerErrorHandling(app);
    app.get('/early', () => 'served');
    registerAuthentication(app, { users: refuseAll as { authenticate(): Promise<Principal> }, sensors: refuseAll as never, sessions: refuseAll as never });
    assert.equal((await app.inject({ url: '/early' })).statusCode, 401);
    await app.close();
  });

  it('recognizes /api however a target spells it', () => {
    for (const target of ['/api', '/api/', '/API/x', '/%61pi/x', '/%2561pi/x', '//api/x', '/x/../api/x', '/x/%2e%2e/api', '/api;v1', 'https://h:1/api/x?y', '/\\api']) {
      assert.equal(looksLikeApiPath(target), true, target);
    }
    for (const target of ['/', '/apix', '/docs', '/sensor/v1/api', '/x/api', 'http://h/%zz']) {
      assert.equal(looksLikeApiPath(target), false, target);
    }
  });
});
