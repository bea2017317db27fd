/** What cbapi reads when it connects: /api/info and the partition list (reference core §2.4–2.5). */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, testStore, type TestApp } from '../../../test/support/app.js';

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

  it('answers the partition list as a JSON object to a global admin and 403 (which cbapi tolerates) to others', async () => {
    const token = await createUser(test, { username: 'viewer' });
    const response = await test.app.inject({ url: '/api/v1/storage/events/partition', headers: as(test.adminToken) });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.ok(body !== null && typeof body === 'object' && !Array.isArray(body));
    assert.equal(body.writer.status, 'hot');
    assert.equal((await test.app.inject({ url: '/api/v1/storage/events/partition', headers: as(token) })).statusCode, 403);
  });

  it('has no storage warning while the disk has room', async () => {
    const response = await test.app.inject({ url: '/api/info', headers: as(test.adminToken) });
    assert.equal(response.json().storage_warning, null);
  });
});

describe('server info when the disk is filling', {
  skip: testStore() === 'postgres' && "the database's disk is not a Vigil server's to measure: on PostgreSQL no local disk warns or drops partitions",
}, () => {
  let test: TestApp;
  before(async () => {
    // Any real disk is fuller than this share; at share 1 nothing is ever deleted.
    test = await startTestApp({ storageWarnDiskShare: 0.0001, storageMaxDiskShare: 1 });
  });
  after(() => test.close());

  it('reports the storage warning the last storage check raised', async () => {
    assert.equal((await test.app.inject({ url: '/api/info', headers: as(test.adminToken) })).json().storage_warning, null);
    await test.container.storage.check();
    const response = await test.app.inject({ url: '/api/info', headers: as(test.adminToken) });
    assert.equal(response.statusCode, 200);
    assert.match(response.json().storage_warning, /disk/iu);
  });
});
