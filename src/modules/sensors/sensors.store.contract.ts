/** The contract of SensorsStore, run against every dialect (sensors.store.test.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import { SqlSensorsStore, type NewSensor } from './sensors.store.js';

const NEW_SENSOR: NewSensor = {
  groupId: 1, secretHash: 'hash', osType: 'linux', hostType: 'server', registrationMs: 1000,
  computerName: 'web-03', computerDnsName: 'web-03.example', computerSid: '', osEnvironmentDisplayString: 'Ubuntu 24.04',
  buildVersionString: '006.001.002.71109', buildId: 2, bootId: '9', networkAdapters: '10.0.0.3,001122334455|',
  physicalMemorySize: 8, systemvolumeTotalSize: 100, systemvolumeFreeSize: 50,
};

export function sensorsStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('keeps one install code per group and finds the group by it', async () => {
    const sensors = new SqlSensorsStore(await fresh());
    assert.equal(await sensors.installCode(1, 'first'), 'first');
    assert.equal(await sensors.installCode(1, 'second'), 'first', 'the first code stays');
    assert.equal(await sensors.groupForInstallCode('first'), 1);
    assert.equal(await sensors.groupForInstallCode('second'), undefined);
  });

  it('registers sensors with what they said and defaults for the rest', async () => {
    const sensors = new SqlSensorsStore(await fresh());
    const a = await sensors.register(NEW_SENSOR);
    const b = await sensors.register({ ...NEW_SENSOR, computerName: 'web-04' });
    assert.notEqual(a.id, b.id);
    assert.deepEqual(await sensors.get(a.id), a);
    assert.equal(a.computerName, 'web-03');
    assert.equal(a.isIsolating, false);
    assert.equal(a.networkIsolationEnabled, false);
    assert.equal(a.lastCheckinMs, null);
    assert.equal(a.lastSequence, 0);
    assert.equal(await sensors.get(9999), undefined);
  });

  it('records check-ins, changing only the facts given', async () => {
    const sensors = new SqlSensorsStore(await fresh());
    const sensor = await sensors.register(NEW_SENSOR);
    assert.equal(await sensors.checkin(sensor.id, { clockDeltaMs: -5, lastCheckinMs: 2000, nextCheckinMs: 32_000, isIsolating: true, uptime: 77 }), true);
    const after = (await sensors.get(sensor.id))!;
    assert.equal(after.isIsolating, true);
    assert.equal(after.uptime, 77);
    assert.equal(after.clockDeltaMs, -5);
    assert.equal(after.lastCheckinMs, 2000);
    assert.equal(after.nextCheckinMs, 32_000);
    assert.equal(after.computerName, 'web-03');
    assert.equal(await sensors.checkin(9999, { clockDeltaMs: 0, lastCheckinMs: 1, nextCheckinMs: 2 }), false);
  });

  it('delivers instructions until they are completed, to their own sensor only', async () => {
    const sensors = new SqlSensorsStore(await fresh());
    const mine = await sensors.register(NEW_SENSOR);
    const other = await sensors.register(NEW_SENSOR);
    const isolate = await sensors.enqueueInstruction(mine.id, 'isolate', undefined, 10);
    const ban = await sensors.enqueueInstruction(mine.id, 'ban_list', { version: 1, added: [] }, 11);
    assert.deepEqual(await sensors.pendingInstructions(mine.id, 20), [
      { id: isolate, type: 'isolate', payload: undefined },
      { id: ban, type: 'ban_list', payload: { version: 1, added: [] } },
    ]);
    await sensors.completeInstructions(other.id, [{ id: isolate }], 30);
    assert.equal((await sensors.pendingInstructions(mine.id, 40)).length, 2, 'another sensor cannot complete them');
    await sensors.completeInstructions(mine.id, [{ id: isolate, result: { ok: true } }], 50);
    assert.deepEqual((await sensors.pendingInstructions(mine.id, 60)).map((i) => i.id), [ban]);
    assert.deepEqual(await sensors.pendingInstructions(other.id, 60), []);
  });

  it('reads ingest counters per sensor and summed', async () => {
    const db = await fresh();
    const sensors = new SqlSensorsStore(db);
    for (const [sensor, name, value] of [[1, 'events_accepted', 10], [2, 'events_accepted', 5], [2, 'batches_accepted', 1]] as const) {
      await db.run('INSERT INTO ingest_counters (sensor_id, name, value) VALUES (?, ?, ?)', [sensor, name, value]);
    }
    assert.deepEqual(await sensors.counters(2), { batches_accepted: 1, events_accepted: 5 });
    assert.deepEqual(await sensors.counters(), { batches_accepted: 1, events_accepted: 15 });
    assert.deepEqual(await sensors.counters(3), {});
  });
}
