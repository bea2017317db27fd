/** Sensor builds over HTTP at the three paths clients use, from the sensors that registered. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';
import { registerSensor } from '../../../test/support/sensors.js';

describe('sensor builds API', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp();
  });
  after(() => test.close());

  it('answers three empty families before any sensor registered', async () => {
    const empty = await test.app.inject({ url: '/api/v2/builds', headers: as(test.adminToken) });
    assert.equal(empty.statusCode, 200);
    assert.deepEqual(empty.json(), { Windows: [], Linux: [], OSX: [] });
  });

  it('lists each build registered sensors run once, by OS family, newest first, at v2, v1 and the legacy path', async () => {
    await registerSensor(test, { os_type: 'windows', build_version_string: '006.001.002.71109' });
    await registerSensor(test, { os_type: 'windows', build_version_string: '006.001.010.80101' });
    await registerSensor(test, { os_type: 'windows', build_version_string: '006.001.002.71109' });
    await registerSensor(test, { os_type: 'linux', build_version_string: '007.000.001.00123' });
    await registerSensor(test, { os_type: 'osx', build_version_string: '006.002.004.90109' });
    const expected = {
      Windows: [{ version_string: '006.001.010.80101' }, { version_string: '006.001.002.71109' }],
      Linux: [{ version_string: '007.000.001.00123' }],
      OSX: [{ version_string: '006.002.004.90109' }],
    };
    for (const url of ['/api/v2/builds', '/api/v1/builds', '/api/builds']) {
      const response = await test.app.inject({ url, headers: as(test.adminToken) });
      assert.equal(response.statusCode, 200, url);
      assert.deepEqual(response.json(), expected, url);
    }
  });

  it('shows a user only the builds of sensors in groups they may view', async () => {
    const group = (await test.app.inject({ method: 'POST', url: '/api/group', headers: as(test.adminToken), payload: { name: 'Builds lab' } })).json();
    await registerSensor(test, { os_type: 'linux', build_version_string: '007.004.000.00001' }, group.id);
    const team = (await test.app.inject({
      method: 'POST', url: '/api/team', headers: as(test.adminToken),
      payload: { name: 'Lab viewers', group_access: [{ group_id: group.id, access_category: 'Viewer' }] },
    })).json();
    const viewer = await createUser(test, { username: 'builds-viewer', teams: [team.id] });
    const seen = await test.app.inject({ url: '/api/v2/builds', headers: as(viewer) });
    assert.equal(seen.statusCode, 200);
    assert.deepEqual(seen.json(), { Windows: [], Linux: [{ version_string: '007.004.000.00001' }], OSX: [] });
    const stranger = await createUser(test, { username: 'builds-stranger' });
    assert.deepEqual((await test.app.inject({ url: '/api/v1/builds', headers: as(stranger) })).json(), { Windows: [], Linux: [], OSX: [] });
  });

  it('answers 401 without a token', async () => {
    for (const url of ['/api/v2/builds', '/api/v1/builds', '/api/builds']) {
      assert.equal((await test.app.inject({ url })).statusCode, 401, url);
    }
  });
});
