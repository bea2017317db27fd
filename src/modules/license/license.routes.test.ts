/** The license endpoints through the real app (reference admin §9.2): XSOAR's connectivity test, cbapi's upload. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, createUser, openAppDatabase, startTestApp, type TestApp } from '../../../test/support/app.js';
import { registerSensor } from '../../../test/support/sensors.js';
import { SqlLicenseStore } from './license.store.js';

const PATHS = ['/api/license', '/api/v1/license'];
const WELL_FORMED = `-- --- BEGIN CB LICENSE --- --\n${Buffer.from('a license issued for a Carbon Black server').toString('base64')}\n-- --- END CB LICENSE --- --\n`;

describe('license', () => {
  let test: TestApp;
  let userToken: string;

  before(async () => {
    test = await startTestApp();
    userToken = await createUser(test, { username: 'analyst' });
  });
  after(() => test.close());

  /** The store's own record, read beside the server through its database. */
  async function storedLicense() {
    const db = openAppDatabase(test);
    try {
      return await new SqlLicenseStore(db).get();
    } finally {
      await db.close();
    }
  }

  it('answers every field to any user, always valid and unlimited, with the real sensor count and server token', async () => {
    const { serverToken } = await storedLicense();
    for (const [i, path] of PATHS.entries()) {
      await registerSensor(test);
      const reply = await test.app.inject({ url: path, headers: as(userToken) });
      assert.equal(reply.statusCode, 200, reply.body);
      const license = reply.json();
      assert.deepEqual(Object.keys(license).sort(), [
        'actual_sensor_count', 'license_end_date', 'license_expired', 'license_request_block', 'license_valid',
        'licensed_sensor_count', 'licensed_sensor_count_exceeded', 'server_token',
      ]);
      assert.equal(license.license_valid, true);
      assert.equal(license.license_expired, false);
      assert.equal(license.licensed_sensor_count_exceeded, false);
      assert.equal(license.licensed_sensor_count, -1);
      assert.match(license.license_end_date, /^\d{4}-\d{2}-\d{2}$/);
      assert.equal(license.actual_sensor_count, i + 1);
      assert.equal(license.server_token, serverToken);
      const block = /^-- --- BEGIN CB LICENSE REQUEST --- --\n([A-Za-z0-9+/=\n]+)-- --- END CB LICENSE REQUEST --- --\n$/.exec(license.license_request_block);
      assert.ok(block, license.license_request_block);
      const request = JSON.parse(Buffer.from(block[1]!.replace(/\n/g, ''), 'base64').toString('utf8'));
      assert.equal(request.server_token, serverToken);
      assert.equal(request.actual_sensor_count, i + 1);
    }
  });

  it('refuses every upload with Carbon Black\'s failure body, since Vigil needs no license, and changes nothing', async () => {
    const before = (await test.app.inject({ url: '/api/license', headers: as(test.adminToken) })).json();
    for (const path of PATHS) {
      for (const license of [WELL_FORMED, '', 'not a license', before.license_request_block]) {
        const reply = await test.app.inject({ method: 'POST', url: path, headers: as(test.adminToken), payload: { license } });
        assert.equal(reply.statusCode, 400, license);
        assert.equal(reply.json().result, 'failure');
        assert.match(reply.json().error, /needs no license/);
      }
    }
    assert.deepEqual((await test.app.inject({ url: '/api/license', headers: as(test.adminToken) })).json(), before);
  });

  it('takes uploads from global admins only, and nothing without a token', async () => {
    const upload = await test.app.inject({ method: 'POST', url: '/api/license', headers: as(userToken), payload: { license: WELL_FORMED } });
    assert.equal(upload.statusCode, 403);
    for (const path of PATHS) {
      assert.equal((await test.app.inject({ url: path })).statusCode, 401);
      assert.equal((await test.app.inject({ method: 'POST', url: path, payload: { license: WELL_FORMED } })).statusCode, 401);
    }
  });
});
