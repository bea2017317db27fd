/** What cbapi reads when it connects: /api/info and the partition list (reference core §2.4–2.5). */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';

/** cbapi compares packaging.version.parse(info.version); for dotted numbers that is tuple order. */
function versionAtLeast(version: string, minimum: number[]): boolean {
  const parts = version.split('.').map(Number);
  for (let i = 0; i < minimum.length; i++) {
    const part = parts[i] ?? 0;
    if (part !== minimum[i]) return part > minimum[i]!;
  }
  return true;
}

describe('server info', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp();
  });
  after(() => test.close());

  it('reports a version cbapi treats as 6.1 or later, and its feature switches', async () => {
    const response = await test.app.inject({ url: '/api/info', headers: as(test.adminToken) });
    assert.equal(response.statusCode, 200);
    const info = response.json();
    assert.match(info.version, /^\d+\.\d+\.\d+/);
    assert.ok(versionAtLeast(info.version, [6, 1]), info.version);
    assert.equal(typeof info.cblrEnabled, 'boolean');
    assert.equal(typeof info.banningEnabled, 'boolean');
    assert.equal(typeof info.maxSearchResultRows, 'number');
    assert.deepEqual(Object.keys(info.features).sort(), ['event_exclusions', 'immutable_documents', 'ipv6_support', 'thirdparty_sharing']);
  });

  it('answers the partition list with a JSON object for any authenticated user', async () => {
    const token = await createUser(test, { username: 'viewer' });
    for (const headers of [as(test.adminToken), as(token)]) {
      const response = await test.app.inject({ url: '/api/v1/storage/events/partition', headers });
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.equal(typeof body, 'object');
      assert.ok(body !== null && !Array.isArray(body));
    }
  });
});
