/** The OpenAPI document is generated from the routes and published with a browsable page. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../test/support/app.js';

describe('OpenAPI document', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp();
  });
  after(() => test.close());

  it('lists the implemented endpoints with their schemas and the token scheme', async () => {
    const response = await test.app.inject({ url: '/openapi.json' });
    assert.equal(response.statusCode, 200);
    const document = response.json();
    assert.equal(document.openapi, '3.0.3');
    assert.deepEqual(document.components.securitySchemes.apiToken, { type: 'apiKey', in: 'header', name: 'X-Auth-Token' });
    const expected: [string, string][] = [
      ['/api/info', 'get'],
      ['/api/v1/storage/events/partition', 'get'],
      ['/api/users', 'get'],
      ['/api/user', 'post'],
      ['/api/user/{username}', 'put'],
      ['/api/v1/user/{username}/token', 'post'],
      ['/api/teams', 'get'],
      ['/api/team/{id}', 'delete'],
      ['/api/group', 'post'],
      ['/api/v3/group/{id}', 'get'],
    ];
    for (const [path, method] of expected) {
      assert.ok(document.paths[path]?.[method], `${method} ${path} is documented`);
    }
    const createUser = document.paths['/api/user'].post;
    assert.ok(createUser.requestBody.content['application/json'].schema.properties.username);
  });

  it('serves a browsable page', async () => {
    const page = await test.app.inject({ url: '/docs/' });
    assert.equal(page.statusCode, 200);
    assert.match(page.headers['content-type'] as string, /text\/html/);
    assert.match(page.body, /swagger/i);
  });
});
