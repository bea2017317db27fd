/** The contract of ThrottleStore, run against every dialect (throttle.store.test.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import { InvalidRequestError } from '../../domain/errors.js';
import { SqlGroupsStore } from '../groups/groups.store.js';
import { SqlSitesStore } from '../sites/sites.store.js';
import { SqlThrottleStore } from './throttle.store.js';

const rule = { siteId: 1, dayOfWeek: 1, fromHour: 9, toHour: 17, bytesPerSecond: 4096 };

export function throttleStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('creates, reads, lists by id, replaces and deletes rules', async () => {
    const store = new SqlThrottleStore(await fresh());
    assert.deepEqual(await store.list(), []);
    const created = await store.create(rule);
    assert.deepEqual(created, { id: created.id, ...rule });
    const second = await store.create({ ...rule, dayOfWeek: 0, bytesPerSecond: 0.5 });
    assert.deepEqual(await store.get(created.id), created);
    assert.deepEqual(await store.list(), [created, second]);
    assert.deepEqual(await store.replace({ ...created, toHour: 24 }), { ...created, toHour: 24 });
    assert.equal(await store.replace({ ...created, id: created.id + 100 }), undefined);
    assert.equal(await store.delete(created.id), true);
    assert.equal(await store.delete(created.id), false);
    assert.equal(await store.get(created.id), undefined);
  });

  it('refuses a site that does not exist, and drops a site\'s rules with the site', async () => {
    const db = await fresh();
    const store = new SqlThrottleStore(db);
    await assert.rejects(store.create({ ...rule, siteId: 4242 }), InvalidRequestError);
    const created = await store.create(rule);
    await assert.rejects(store.replace({ ...created, siteId: 4242 }), InvalidRequestError);
    const branch = await new SqlSitesStore(db).create('Branch');
    const moved = await store.replace({ ...created, siteId: branch.id });
    assert.equal(moved?.siteId, branch.id);
    await new SqlSitesStore(db).delete(branch.id);
    assert.equal(await store.get(created.id), undefined);
  });

  it('gives the site of a group and its rules by day, hour and id', async () => {
    const db = await fresh();
    const store = new SqlThrottleStore(db);
    const branch = await new SqlSitesStore(db).create('Branch');
    const group = await new SqlGroupsStore(db).create({ name: 'Branch PCs', siteId: branch.id, settings: {}, teamGrants: [] });
    assert.deepEqual(await store.rulesOfGroup(group.id), { siteId: branch.id, rules: [] });
    const late = await store.create({ ...rule, siteId: branch.id, fromHour: 18, toHour: 20 });
    const sunday = await store.create({ ...rule, siteId: branch.id, dayOfWeek: 0 });
    const early = await store.create({ ...rule, siteId: branch.id, fromHour: 6, toHour: 8 });
    await store.create(rule);
    assert.deepEqual(await store.rulesOfGroup(group.id), { siteId: branch.id, rules: [sunday, early, late] });
    assert.equal(await store.rulesOfGroup(4242), undefined);
  });

  it('keeps the delivery last queued for each sensor', async () => {
    const store = new SqlThrottleStore(await fresh());
    assert.equal(await store.sensorDelivery(7), undefined);
    await store.saveSensorDelivery(7, { rules: '{"a":1}', instructionId: 3 });
    await store.saveSensorDelivery(8, { rules: '{"b":1}', instructionId: 4 });
    await store.saveSensorDelivery(7, { rules: '{"a":2}', instructionId: 5 });
    assert.deepEqual(await store.sensorDelivery(7), { rules: '{"a":2}', instructionId: 5 });
    assert.deepEqual(await store.sensorDelivery(8), { rules: '{"b":1}', instructionId: 4 });
  });
}
