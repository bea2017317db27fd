/**
 * Site throttle rules over HTTP, and their delivery to the site's sensors in check-in replies
 * through the real sensor protocol.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';
import { checkin, registerSensor, type TestSensor } from '../../../test/support/sensors.js';
import type { CheckinReply } from '../sensors/sensor-protocol.schemas.js';

describe('throttle rules API', () => {
  let test: TestApp;
  let viewer: string;
  before(async () => {
    test = await startTestApp();
    viewer = await createUser(test, { username: 'throttle-viewer' });
  });
  after(() => test.close());

  const inject = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, token = test.adminToken) =>
    test.app.inject({ method, url, headers: as(token), ...(payload ? { payload } : {}) });
  const ok = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, token = test.adminToken) => {
    const response = await inject(method, url, payload, token);
    assert.equal(response.statusCode, 200, `${method} ${url}: ${response.body}`);
    return response.json();
  };
  const newSite = async (name: string): Promise<number> => (await ok('POST', '/api/site', { name })).id;

  it('creates, reads, lists, changes and deletes rules', async () => {
    const siteId = await newSite('Branch office');
    const created = await ok('POST', '/api/throttle', { id: null, site_id: siteId, day_of_week: 1, from: 9, to: 17, bytes_per_second: 65536 });
    assert.deepEqual(created, { id: created.id, site_id: siteId, day_of_week: 1, from: 9, to: 17, bytes_per_second: 65536 });
    assert.deepEqual(await ok('GET', `/api/throttle/${created.id}`), created);
    assert.deepEqual((await ok('GET', '/api/throttle', undefined, viewer)).find((r: { id: number }) => r.id === created.id), created);
    const changed = await ok('PUT', `/api/throttle/${created.id}`, { ...created, to: 18, bytes_per_second: 32768.5 });
    assert.deepEqual(changed, { ...created, to: 18, bytes_per_second: 32768.5 });
    assert.deepEqual(await ok('GET', `/api/throttle/${created.id}`, undefined, viewer), changed);
    assert.deepEqual(await ok('DELETE', `/api/throttle/${created.id}`), { result: 'success' });
    assert.equal((await inject('GET', `/api/throttle/${created.id}`)).statusCode, 404);
  });

  it('lets only global admins change rules', async () => {
    const rule = { site_id: 1, day_of_week: 2, from: 0, to: 6, bytes_per_second: 1000 };
    assert.equal((await inject('POST', '/api/throttle', rule, viewer)).statusCode, 403);
    const created = await ok('POST', '/api/throttle', rule);
    assert.equal((await inject('PUT', `/api/throttle/${created.id}`, { to: 7 }, viewer)).statusCode, 403);
    assert.equal((await inject('DELETE', `/api/throttle/${created.id}`, undefined, viewer)).statusCode, 403);
    await ok('DELETE', `/api/throttle/${created.id}`);
  });

  it('answers 400 for bad rules, 404 for unknown ids, 401 without a token', async () => {
    const rule = { site_id: 1, day_of_week: 2, from: 8, to: 12, bytes_per_second: 1000 };
    for (const bad of [{ ...rule, day_of_week: 7 }, { ...rule, from: 24 }, { ...rule, to: 0 }, { ...rule, bytes_per_second: 0 }, { ...rule, site_id: undefined }]) {
      assert.equal((await inject('POST', '/api/throttle', bad)).statusCode, 400, JSON.stringify(bad));
    }
    const backwards = await inject('POST', '/api/throttle', { ...rule, from: 12, to: 8 });
    assert.equal(backwards.statusCode, 400);
    assert.match(backwards.json().message, /before it ends/);
    const noSite = await inject('POST', '/api/throttle', { ...rule, site_id: 4242 });
    assert.equal(noSite.statusCode, 400);
    assert.match(noSite.json().message, /site_id: no site/);
    const created = await ok('POST', '/api/throttle', rule);
    assert.equal((await inject('PUT', `/api/throttle/${created.id}`, { from: 13 })).statusCode, 400);
    assert.equal((await inject('PUT', `/api/throttle/${created.id}`, { site_id: 4242 })).statusCode, 400);
    await ok('DELETE', `/api/throttle/${created.id}`);
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      assert.equal((await inject(method, '/api/throttle/4242', method === 'PUT' ? { to: 5 } : undefined)).statusCode, 404, method);
    }
    assert.equal((await inject('GET', '/api/throttle/abc')).statusCode, 400);
    for (const [method, url] of [['GET', '/api/throttle'], ['POST', '/api/throttle'], ['GET', '/api/throttle/1'], ['DELETE', '/api/throttle/1']] as const) {
      assert.equal((await test.app.inject({ method, url })).statusCode, 401, `${method} ${url}`);
    }
  });

  describe('delivery to sensors', () => {
    const throttleOf = (reply: CheckinReply) => reply.instructions.filter((instruction) => instruction.type === 'throttle');
    const acknowledge = (sensor: TestSensor, reply: CheckinReply) =>
      checkin(test, sensor, { completed: throttleOf(reply).map(({ id }) => ({ id })) });

    it('sends a sensor its site\'s rules at check-in, once acknowledged not again, and every change as the whole list', async () => {
      const siteId = await newSite('Warehouse');
      const group = await ok('POST', '/api/group', { name: 'Warehouse PCs', site_id: siteId });
      const sensor = await registerSensor(test, { computer_name: 'WAREHOUSE-01' }, group.id);
      assert.deepEqual(throttleOf(await checkin(test, sensor)), [], 'no rules, nothing to send');

      const night = await ok('POST', '/api/throttle', { site_id: siteId, day_of_week: 3, from: 0, to: 6, bytes_per_second: 8000 });
      const day = await ok('POST', '/api/throttle', { site_id: siteId, day_of_week: 1, from: 9, to: 17, bytes_per_second: 4000 });
      const first = await checkin(test, sensor);
      assert.deepEqual(throttleOf(first).map(({ payload }) => payload), [{
        site_id: siteId,
        rules: [{ day_of_week: 1, from: 9, to: 17, bytes_per_second: 4000 }, { day_of_week: 3, from: 0, to: 6, bytes_per_second: 8000 }],
      }]);
      assert.deepEqual(throttleOf(await checkin(test, sensor)), throttleOf(first), 'sent again until acknowledged');
      assert.deepEqual(throttleOf(await acknowledge(sensor, first)), []);
      assert.deepEqual(throttleOf(await checkin(test, sensor)), []);

      await ok('PUT', `/api/throttle/${day.id}`, { bytes_per_second: 2000 });
      await ok('DELETE', `/api/throttle/${night.id}`);
      const changed = await checkin(test, sensor);
      assert.deepEqual(throttleOf(changed).map(({ payload }) => payload), [{ site_id: siteId, rules: [{ day_of_week: 1, from: 9, to: 17, bytes_per_second: 2000 }] }]);
      await acknowledge(sensor, changed);

      await ok('DELETE', `/api/throttle/${day.id}`);
      const lifted = await checkin(test, sensor);
      assert.deepEqual(throttleOf(lifted).map(({ payload }) => payload), [{ site_id: siteId, rules: [] }], 'an empty list lifts the limits');
      await acknowledge(sensor, lifted);
      assert.deepEqual(throttleOf(await checkin(test, sensor)), []);
    });

    it('replaces a pending list that went stale, and follows a group into another site', async () => {
      const north = await newSite('North');
      const south = await newSite('South');
      const group = await ok('POST', '/api/group', { name: 'Roaming', site_id: north });
      const sensor = await registerSensor(test, { computer_name: 'ROAMING-01' }, group.id);
      await ok('POST', '/api/throttle', { site_id: north, day_of_week: 0, from: 0, to: 24, bytes_per_second: 100 });
      const pending = throttleOf(await checkin(test, sensor));
      assert.equal(pending.length, 1);

      await ok('POST', '/api/throttle', { site_id: south, day_of_week: 6, from: 12, to: 13, bytes_per_second: 300 });
      assert.equal((await test.app.inject({ method: 'PUT', url: `/api/group/${group.id}`, headers: as(test.adminToken), payload: { site_id: south } })).statusCode, 200);
      const moved = throttleOf(await checkin(test, sensor));
      assert.deepEqual(moved.map(({ payload }) => payload), [{ site_id: south, rules: [{ day_of_week: 6, from: 12, to: 13, bytes_per_second: 300 }] }]);
      assert.notEqual(moved[0]!.id, pending[0]!.id, 'the North list, never acknowledged, is withdrawn');
    });
  });
});
