/** One error handler, Carbon Black–shaped bodies, and never a 500 for bad input. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, type TestApp } from '../../test/support/app.js';
import { PostgresDatabase } from '../db/dialects/postgres.js';
import { analyze, parseQuery, QueryError, toDomainError } from '../query/index.js';
import { closedPort } from '../../test/support/closed-port.js';

describe('error handling', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp({ apiBodyLimitBytes: 4096 });
    // A route that fails the way a bug would, to see what a client is shown.
    test.app.get('/api/test/explode', async () => {
      throw new Error('secret internal detail: /var/lib/vigil');
    });
    // A read from a PostgreSQL server that is not there, the way a store would make it.
    test.app.get('/api/test/database-down', async () => {
      const down = PostgresDatabase.open(`postgres://vigil:hunter2@127.0.0.1:${await closedPort()}/vigil`);
      try {
        return await down.get('SELECT 1');
      } finally {
        await down.close();
      }
    });
    // A search the way a service will run one: a bad query becomes the domain error.
    test.app.get('/api/test/search', async (request) => {
      try {
        analyze(parseQuery((request.query as { q?: string }).q ?? ''), { index: 'process', now: Date.now() });
      } catch (error) {
        throw error instanceof QueryError ? toDomainError(error) : error;
      }
      return { results: [] };
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

  it('answers a bad query with the 400 body cbapi turns into QuerySyntaxError, pointing at the position', async () => {
    const search = (q: string) => test.app.inject({ url: `/api/test/search?q=${encodeURIComponent(q)}`, headers: as(test.adminToken) });
    const unbalanced = await search('process_name:x)');
    assert.equal(unbalanced.statusCode, 400);
    assert.deepEqual(unbalanced.json(), {
      reason: 'query_malformed_syntax', message: 'Unbalanced ")" without a matching "(" at position 14', position: 14, parameter: 'q',
    });
    const typo = await search('disig_issuer:verisign');
    assert.equal(typo.statusCode, 400);
    assert.deepEqual(typo.json(), {
      reason: 'query_malformed_syntax', message: 'Unknown field "disig_issuer" at position 0; did you mean "digsig_issuer"?', position: 0, parameter: 'q',
    });
    assert.equal((await search('process_name:svchost.exe')).statusCode, 200);
  });

  it('answers a database that cannot be reached with 503, Retry-After and a reason, not a 500 with its address', async () => {
    const response = await test.app.inject({ url: '/api/test/database-down', headers: as(test.adminToken) });
    assert.equal(response.statusCode, 503);
    assert.equal(response.headers['retry-after'], '5');
    assert.deepEqual(response.json(), { reason: 'database_unavailable', message: 'The database cannot be reached; try again shortly' });
  });

  it('hides internals behind a plain 500', async () => {
    const response = await test.app.inject({ url: '/api/test/explode', headers: as(test.adminToken) });
    assert.equal(response.statusCode, 500);
    assert.equal(response.body, 'Unhandled exception. Check logs for details.');
    assert.doesNotMatch(response.body, /secret/);
  });
});
