/** The contract of SensorsStore, run against every dialect (sensors.store.test.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import { InvalidRequestError } from '../../domain/errors.js';
import { SqlSensorsStore, type NewSensor, type SensorFilter, type SensorRecord } from './sensors.store.js';

const NEW_SENSOR: NewSensor = {
  groupId: 1, secretHash: 'hash', osType: 'linux', hostType: 'server', registrationMs: 1000,
  computerName: 'web-03', computerDnsName: 'web-03.example', computerSid: '', osEnvironmentDisplayString: 'Ubuntu 24.04',
  buildVersionString: '006.001.002.71109', buildId: 2, bootId: '9', networkAdapters: '10.0.0.3,001122334455|',
  physicalMemorySize: 8, systemvolumeTotalSize: 100, systemvolumeFreeSize: 50,
};

export function sensorsStoreContract(fresh: () => Promise<SqlDatabase>): void {
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
    assert.deepEqual(await sensors.checkin([{ id: sensor.id, facts: { clockDeltaMs: -5, lastCheckinMs: 2000, nextCheckinMs: 32_000, isIsolating: true, uptime: 77 } }]), [true]);
    const after = (await sensors.get(sensor.id))!;
    assert.equal(after.isIsolating, true);
    assert.equal(after.uptime, 77);
    assert.equal(after.clockDeltaMs, -5);
    assert.equal(after.lastCheckinMs, 2000);
    assert.equal(after.nextCheckinMs, 32_000);
    assert.equal(after.computerName, 'web-03');
    assert.deepEqual(await sensors.checkin([{ id: 9999, facts: { clockDeltaMs: 0, lastCheckinMs: 1, nextCheckinMs: 2 } }]), [false]);
  });

  it('records a batch of check-ins in one call, each as if alone, in the order given', async () => {
    const db = await fresh();
    const sensors = new SqlSensorsStore(db);
    const a = await sensors.register(NEW_SENSOR);
    const b = await sensors.register(NEW_SENSOR);
    const recorded = await sensors.checkin([
      { id: b.id, facts: { clockDeltaMs: 0, lastCheckinMs: 2000, nextCheckinMs: 32_000, uptime: 5 } },
      { id: 9999, facts: { clockDeltaMs: 0, lastCheckinMs: 2000, nextCheckinMs: 32_000 } },
      { id: a.id, facts: { clockDeltaMs: 0, lastCheckinMs: 2000, nextCheckinMs: 32_000, isIsolating: true, uptime: 1 } },
      // Back after more than three intervals: offline then online, against the check-in before it in the batch.
      { id: a.id, facts: { clockDeltaMs: 0, lastCheckinMs: 200_000, nextCheckinMs: 230_000, isIsolating: true, uptime: 2 } },
    ]);
    assert.deepEqual(recorded, [true, false, true, true]);
    const after = (await sensors.get(a.id))!;
    assert.deepEqual([after.uptime, after.lastCheckinMs, after.isIsolating], [2, 200_000, true]);
    assert.equal((await sensors.get(b.id))!.uptime, 5);
    const changes = await db.all<{ state: string; changed_ms: number }>(
      'SELECT state, changed_ms FROM sensor_state_changes WHERE sensor_id = ? ORDER BY id', [a.id],
    );
    assert.deepEqual(changes.map((c) => [c.state, Number(c.changed_ms)]), [
      ['sensor.status.registered', 1000], ['sensor.isolation.confirmed', 2000],
      ['sensor.status.offline', 92_001], ['sensor.status.online', 200_000],
    ]);
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

  it('withdraws pending instructions by id, delivered or not, and ignores their acknowledgement after', async () => {
    const sensors = new SqlSensorsStore(await fresh());
    const sensor = await sensors.register(NEW_SENSOR);
    const [done, delivered, queued, kept] = [
      await sensors.enqueueInstruction(sensor.id, 'live_response', { command_id: 1 }, 10),
      await sensors.enqueueInstruction(sensor.id, 'live_response', { command_id: 2 }, 10),
      await sensors.enqueueInstruction(sensor.id, 'live_response', { command_id: 3 }, 10),
      await sensors.enqueueInstruction(sensor.id, 'isolate', undefined, 10),
    ];
    await sensors.pendingInstructions(sensor.id, 20);
    await sensors.completeInstructions(sensor.id, [{ id: done, result: { status: 'complete' } }], 30);
    await sensors.withdrawInstructions([done, delivered, queued]);
    await sensors.withdrawInstructions([]);
    assert.deepEqual((await sensors.pendingInstructions(sensor.id, 40)).map((i) => i.id), [kept]);
    await sensors.completeInstructions(sensor.id, [{ id: delivered }], 50);
    assert.deepEqual((await sensors.pendingInstructions(sensor.id, 60)).map((i) => i.id), [kept]);
  });

  it('lists the sensors a filter covers: groups, case-sensitive substrings, addresses never MACs, activity', async () => {
    const sensors = new SqlSensorsStore(await fresh());
    const web = await sensors.register(NEW_SENSOR);
    const db = await sensors.register({ ...NEW_SENSOR, computerName: 'DB-01', networkAdapters: '192.168.7.20,aabbccddeeff|10.0.0.9,001122334466|' });
    const ids = async (filter: SensorFilter) => (await sensors.list(filter)).map((sensor) => sensor.id);
    assert.deepEqual(await ids({}), [web.id, db.id]);
    assert.deepEqual(await ids({ hostname: 'eb-0' }), [web.id]);
    assert.deepEqual(await ids({ hostname: 'db' }), [], 'case-sensitive');
    assert.deepEqual(await ids({ ip: '10.0.0' }), [web.id, db.id]);
    assert.deepEqual(await ids({ ip: '168.7' }), [db.id]);
    assert.deepEqual(await ids({ ip: 'aabb' }), [], 'a MAC is not an address');
    assert.deepEqual(await ids({ ip: '9|192' }), [], 'no match across two addresses');
    assert.deepEqual(await ids({ groupIds: [] }), []);
    assert.deepEqual(await ids({ groupIds: [1], hostname: 'DB' }), [db.id]);
    await sensors.checkin([{ id: web.id, facts: { clockDeltaMs: 0, lastCheckinMs: 5000, nextCheckinMs: 6000, networkAdapters: '172.16.0.4,001122334455|' } }]);
    assert.deepEqual(await ids({ ip: '172.16' }), [web.id], 'a check-in updates the addresses');
    assert.deepEqual(await ids({ ip: '10.0.0.3' }), []);
    assert.deepEqual(await ids({ activeSinceMs: 4000 }), [web.id], 'seen at its check-in; the other only at registration');
    assert.equal(await sensors.count({ ip: '10.0.0' }), 1);
  });

  it('pages in a total order, ties broken by id in the same direction', async () => {
    const sensors = new SqlSensorsStore(await fresh());
    const names = ['b', 'a', 'b', 'c', 'a', 'b', 'a'];
    for (const computerName of names) await sensors.register({ ...NEW_SENSOR, computerName });
    const all = await sensors.list({});
    for (const descending of [false, true]) {
      const pages: SensorRecord[] = [];
      for (let start = 0; start < names.length; start += 3) {
        pages.push(...(await sensors.list({}, { sort: 'computerName', descending, start, rows: 3 })));
      }
      const expected = [...all].sort((x, y) => x.computerName.localeCompare(y.computerName) || x.id - y.id);
      assert.deepEqual(pages.map((s) => s.id), (descending ? expected.reverse() : expected).map((s) => s.id));
    }
  });

  it('applies what decide says from the sensor as it is, with its instructions, or nothing when decide throws', async () => {
    const sensors = new SqlSensorsStore(await fresh());
    const sensor = await sensors.register(NEW_SENSOR);
    const pending = await sensors.enqueueInstruction(sensor.id, 'isolate', undefined, 10);
    const banList = await sensors.enqueueInstruction(sensor.id, 'ban_list', { version: 1 }, 10);
    await sensors.pendingInstructions(sensor.id, 11);
    const seen: SensorRecord[] = [];
    const updated = await sensors.modify(sensor.id, (current) => {
      seen.push(current);
      return { changes: { notes: 'quarantine', networkIsolationEnabled: false }, withdraw: ['isolate', 'unisolate'], enqueue: ['unisolate'] };
    }, 20);
    assert.deepEqual(seen, [sensor]);
    assert.equal(updated!.notes, 'quarantine');
    assert.equal(updated!.networkIsolationEnabled, false);
    const queue = await sensors.pendingInstructions(sensor.id, 30);
    assert.deepEqual(queue.map((i) => i.type), ['ban_list', 'unisolate'], 'the delivered isolate is withdrawn, other types stay');
    assert.ok(!queue.some((i) => i.id === pending));
    assert.ok(queue.some((i) => i.id === banList));

    await assert.rejects(sensors.modify(sensor.id, () => { throw new Error('refused'); }, 40), /refused/);
    await assert.rejects(
      sensors.modify(sensor.id, () => ({ changes: { groupId: 999 }, withdraw: [], enqueue: ['restart'] }), 50),
      (error: Error) => error instanceof InvalidRequestError && /group_id/.test(error.message),
    );
    assert.deepEqual((await sensors.pendingInstructions(sensor.id, 60)).map((i) => i.type), ['ban_list', 'unisolate'], 'nothing of a failed modify stays');
    assert.equal(await sensors.modify(9999, () => ({ changes: {}, withdraw: [], enqueue: [] }), 70), undefined);
  });

  it('clears restart_queued when the restart is done and marks the sensor uninstalled when it confirms', async () => {
    const sensors = new SqlSensorsStore(await fresh());
    const sensor = await sensors.register(NEW_SENSOR);
    await sensors.modify(sensor.id, () => ({ changes: { restartQueued: true, uninstall: true }, withdraw: [], enqueue: ['restart', 'uninstall'] }), 10);
    const [restart, uninstall] = await sensors.pendingInstructions(sensor.id, 20);
    await sensors.completeInstructions(sensor.id, [{ id: restart!.id }], 30);
    let record = (await sensors.get(sensor.id))!;
    assert.equal(record.restartQueued, false);
    assert.equal(record.uninstall, true);
    assert.equal(record.uninstalledMs, null);
    await sensors.completeInstructions(sensor.id, [{ id: uninstall!.id }], 40);
    await sensors.completeInstructions(sensor.id, [{ id: uninstall!.id }], 50);
    record = (await sensors.get(sensor.id))!;
    assert.equal(record.uninstalledMs, 40, 'the first confirmation counts');
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
