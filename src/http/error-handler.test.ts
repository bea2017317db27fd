/** One error handler, Carbon Black–shaped bodies, and never a 500 for bad input. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, type TestApp } from '../../test/support/app.js';

describe('error handling', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp({ apiBodyLimitBytes: 4096 });
    // A route that fails the way a bug would, to see what a client is shown.
    test.app.get('/api/test/explode', async () => {
      throw new Error('secret internal detail: /var/lib/vigil');
    });
  });
  after(() => test.close());

  it('answers an unknown route with the Werkzeug 404 page clients match on', async () => {
    const response = await test.app.inject({ url: '/api/v1/nothing', headers: as(test.adminToken) });
    assert.equal(response.statusCode, 404);
    assert.match(response.headers['content-type'] as string, /text\/html/);
    assert.match(response.body, />The requested URL was not found on the server\./);
    assert.equal((await test.app.inject({ url: '/no/such/page' })).statusCode, 404);
  });

  it('answers malformed JSON with a 400 JSON body', async () => {
    const response = await test.app.inject({
      method: 'POST', url: '/api/user', headers: { ...as(test.adminToken), 'content-type': 'application/json' },
      payload: '{"username": ',
    });
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().reason, 'invalid_request');
    assert.match(response.json().message, /JSON/);
  });

  it('refuses prototype-poisoning bodies with a 400', async () => {
    const response = await test.app.inject({
      method: 'POST', url: '/api/team', headers: { ...as(test.adminToken), 'content-type': 'application/json' },
      payload: '{"name": "x", "__proto__": {"global_admin": true}}',
    });
    assert.equal(response.statusCode, 400);
  });

  it('answers an oversized body with 413', async () => {
    const response = await test.app.inject({
      method: 'POST', url: '/api/team', headers: as(test.adminToken),
      payload: { name: 'big', padding: 'x'.repeat(10_000) },
    });
    assert.equal(response.statusCode, 413);
    assert.equal(response.json().reason, 'payload_too_large');
  });

  it('answers an unsupported media type with 415', async () => {
    const response = await test.app.inject({
      method: 'POST', url: '/api/team', headers: { ...as(test.adminToken), 'content-type': 'application/xml' },
      payload: '<team/>',
    });
    assert.equal(response.statusCode, 415);
  });

  it('treats an empty JSON body as no body', async () => {
    const token = await createUser(test, { username: 'resetter' });
    const response = await test.app.inject({
      method: 'POST', url: '/api/v1/user/resetter/token', headers: { ...as(token), 'content-type': 'application/json' },
      payload: '',
    });
    assert.equal(response.statusCode, 200);
  });

  it('hides internals behind a plain 500', async () => {
    const response = await test.app.inject({ url: '/api/test/explode', headers: as(test.adminToken) });
    assert.equal(response.statusCode, 500);
    assert.equal(response.body, 'Unhandled exception. Check logs for details.');
    assert.doesNotMatch(response.body, /secret/);
  });
});
