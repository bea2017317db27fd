/**
 * Isolation, restart and uninstall from the analyst's PUT to the sensor's confirmation, through the
 * real API and the real check-in endpoint: every phase of reference core §6.4.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { as, startTestApp, type TestApp } from '../../../test/support/app.js';
import { checkin, registerSensor, type TestSensor } from '../../../test/support/sensors.js';

interface Phase {
  network_isolation_enabled: boolean;
  is_isolating: boolean;
}

describe('sensor isolation and other requests', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp();
  });
  after(() => test.close());

  const read = async (sensor: TestSensor) => {
    const response = await test.app.inject({ url: `/api/v1/sensor/${sensor.id}`, headers: as(test.adminToken) });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };
  const phase = async (sensor: TestSensor): Promise<Phase> => {
    const { network_isolation_enabled, is_isolating } = await read(sensor);
    return { network_isolation_enabled, is_isolating };
  };
  const put = async (sensor: TestSensor, body: Record<string, unknown>) => {
    const response = await test.app.inject({ method: 'PUT', url: `/api/v1/sensor/${sensor.id}`, headers: as(test.adminToken), payload: body });
    assert.equal(response.statusCode, 204, response.body);
    assert.equal(response.body, '');
  };

  it('isolates only once the sensor confirms at a check-in, and keeps it checking in while isolated', async () => {
    const sensor = await registerSensor(test);
    assert.deepEqual((await checkin(test, sensor, { is_isolating: false })).instructions, []);
    assert.deepEqual(await phase(sensor), { network_isolation_enabled: false, is_isolating: false }, 'normal');

    await put(sensor, { network_isolation_enabled: true });
    assert.deepEqual(await phase(sensor), { network_isolation_enabled: true, is_isolating: false }, 'requested, not yet active');

    const delivered = await checkin(test, sensor, { is_isolating: false });
    assert.deepEqual(delivered.instructions.map((i) => i.type), ['isolate']);
    assert.deepEqual(await phase(sensor), { network_isolation_enabled: true, is_isolating: false }, 'delivered is not confirmed');

    const confirmed = await checkin(test, sensor, { completed: [{ id: delivered.instructions[0]!.id }], is_isolating: true });
    assert.deepEqual(confirmed.instructions, []);
    assert.deepEqual(await phase(sensor), { network_isolation_enabled: true, is_isolating: true }, 'requested and active');

    const isolated = await checkin(test, sensor, { is_isolating: true });
    assert.deepEqual(isolated.instructions, []);
    const record = await read(sensor);
    assert.equal(record.status, 'Online', 'an isolated sensor keeps its channel to the server');
  });

  it('restores the same way, with unisolate, showing "disabled but still active" until the sensor confirms', async () => {
    const sensor = await registerSensor(test);
    await put(sensor, { network_isolation_enabled: true });
    const isolate = (await checkin(test, sensor)).instructions[0]!;
    await checkin(test, sensor, { completed: [{ id: isolate.id }], is_isolating: true });

    await put(sensor, { network_isolation_enabled: false });
    assert.deepEqual(await phase(sensor), { network_isolation_enabled: false, is_isolating: true });
    const unisolate = (await checkin(test, sensor, { is_isolating: true })).instructions;
    assert.deepEqual(unisolate.map((i) => i.type), ['unisolate']);
    assert.deepEqual(await phase(sensor), { network_isolation_enabled: false, is_isolating: true });
    await checkin(test, sensor, { completed: [{ id: unisolate[0]!.id }], is_isolating: false });
    assert.deepEqual(await phase(sensor), { network_isolation_enabled: false, is_isolating: false });
    assert.deepEqual((await checkin(test, sensor)).instructions, []);
  });

  it('keeps one pending instruction however often the request is repeated or reversed', async () => {
    const sensor = await registerSensor(test);
    await put(sensor, { network_isolation_enabled: true });
    await put(sensor, { network_isolation_enabled: true });
    const first = (await checkin(test, sensor)).instructions;
    assert.deepEqual(first.map((i) => i.type), ['isolate'], 'a repeated request is one instruction');

    // Requested again after delivery, before confirmation: the fresh instruction replaces the old.
    await put(sensor, { network_isolation_enabled: true });
    const second = await checkin(test, sensor, { completed: [{ id: first[0]!.id }], is_isolating: true });
    assert.deepEqual(second.instructions.map((i) => i.type), ['isolate']);
    assert.notEqual(second.instructions[0]!.id, first[0]!.id);
    assert.deepEqual(await phase(sensor), { network_isolation_enabled: true, is_isolating: true }, 'the sensor\'s report counts');
    await checkin(test, sensor, { completed: [{ id: second.instructions[0]!.id }], is_isolating: true });

    // Reversed twice before the sensor hears of it: only the last word is sent.
    await put(sensor, { network_isolation_enabled: false });
    await put(sensor, { network_isolation_enabled: true });
    await put(sensor, { network_isolation_enabled: false });
    const last = (await checkin(test, sensor, { is_isolating: true })).instructions;
    assert.deepEqual(last.map((i) => i.type), ['unisolate']);
    await checkin(test, sensor, { completed: [{ id: last[0]!.id }], is_isolating: false });
    assert.deepEqual(await phase(sensor), { network_isolation_enabled: false, is_isolating: false });
  });

  it('tells the truth when the sensor acknowledges isolation but reports it is not in force, and sends it again on request', async () => {
    const sensor = await registerSensor(test);
    await put(sensor, { network_isolation_enabled: true });
    const isolate = (await checkin(test, sensor)).instructions[0]!;
    const failed = await checkin(test, sensor, { completed: [{ id: isolate.id }], is_isolating: false });
    assert.deepEqual(failed.instructions, []);
    assert.deepEqual(await phase(sensor), { network_isolation_enabled: true, is_isolating: false });
    await put(sensor, { network_isolation_enabled: true });
    assert.deepEqual((await checkin(test, sensor)).instructions.map((i) => i.type), ['isolate']);
  });

  it('takes the whole record as older clients send it, and ignores what only the sensor may say', async () => {
    const sensor = await registerSensor(test);
    const record = await read(sensor);
    await put(sensor, { ...record, network_isolation_enabled: true, is_isolating: true, computer_name: 'RENAMED', status: 'Offline', notes: 'ticket 42' });
    const after = await read(sensor);
    assert.deepEqual({ enabled: after.network_isolation_enabled, isolating: after.is_isolating }, { enabled: true, isolating: false });
    assert.equal(after.computer_name, record.computer_name);
    assert.equal(after.notes, 'ticket 42');
    assert.deepEqual((await checkin(test, sensor)).instructions.map((i) => i.type), ['isolate']);
  });

  it('sends restart and uninstall as instructions; restart_queued clears and the sensor shows uninstalled once each is done', async () => {
    const sensor = await registerSensor(test);
    // cbapi 7.1+ sends exactly these six fields.
    const narrow = { network_isolation_enabled: false, restart_queued: true, uninstall: false, group_id: 1, notes: null, event_log_flush_time: null };
    await put(sensor, narrow);
    assert.equal((await read(sensor)).restart_queued, true);
    const restart = (await checkin(test, sensor)).instructions;
    assert.deepEqual(restart.map((i) => i.type), ['restart']);
    await checkin(test, sensor, { completed: [{ id: restart[0]!.id }], sensor_uptime: 3 });
    assert.equal((await read(sensor)).restart_queued, false);

    await put(sensor, { ...narrow, restart_queued: false, uninstall: true });
    assert.deepEqual({ uninstall: (await read(sensor)).uninstall, uninstalled: (await read(sensor)).uninstalled }, { uninstall: true, uninstalled: null });
    const uninstall = (await checkin(test, sensor)).instructions;
    assert.deepEqual(uninstall.map((i) => i.type), ['uninstall']);
    await checkin(test, sensor, { completed: [{ id: uninstall[0]!.id }] });
    const gone = await read(sensor);
    assert.deepEqual({ uninstall: gone.uninstall, uninstalled: gone.uninstalled, status: gone.status }, { uninstall: true, uninstalled: true, status: 'Uninstalled' });

    const undo = await test.app.inject({
      method: 'PUT', url: `/api/v1/sensor/${sensor.id}`, headers: as(test.adminToken), payload: { ...narrow, restart_queued: false },
    });
    assert.equal(undo.statusCode, 409);
  });

  it('withdraws a restart or uninstall cancelled before the sensor checked in', async () => {
    const sensor = await registerSensor(test);
    await put(sensor, { restart_queued: true, uninstall: true });
    await put(sensor, { restart_queued: false, uninstall: false });
    assert.deepEqual((await checkin(test, sensor)).instructions, []);
    const record = await read(sensor);
    assert.deepEqual([record.restart_queued, record.uninstall], [false, false]);
  });
});

describe('isolation of a sensor that is offline', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp({ checkinIntervalSeconds: 1 });
  });
  after(() => test.close());

  it('stays requested and not isolating, and the sensor shows Offline after three missed check-ins', async () => {
    const sensor = await registerSensor(test);
    await checkin(test, sensor);
    const put = await test.app.inject({
      method: 'PUT', url: `/api/v1/sensor/${sensor.id}`, headers: as(test.adminToken), payload: { network_isolation_enabled: true },
    });
    assert.equal(put.statusCode, 204);
    const read = async () => (await test.app.inject({ url: `/api/v1/sensor/${sensor.id}`, headers: as(test.adminToken) })).json();
    assert.equal((await read()).status, 'Online');

    await sleep(3_200);
    const record = await read();
    assert.deepEqual(
      { status: record.status, network_isolation_enabled: record.network_isolation_enabled, is_isolating: record.is_isolating },
      { status: 'Offline', network_isolation_enabled: true, is_isolating: false },
    );

    // When it comes back, the request is still waiting for it.
    assert.deepEqual((await checkin(test, sensor)).instructions.map((i) => i.type), ['isolate']);
    assert.equal((await read()).status, 'Online');
  });
});
