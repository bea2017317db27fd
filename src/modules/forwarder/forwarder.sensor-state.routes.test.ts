/**
 * Sensor state changes forwarded to a real file output: registration, isolation requested and
 * confirmed, going offline and coming back, uninstall requested and confirmed, each once and in
 * the order they happened.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, it } from 'node:test';
import { as, startTestApp, type TestApp } from '../../../test/support/app.js';
import { eventually } from '../../../test/support/forward-receivers.js';
import { checkin, registerSensor, type TestSensor } from '../../../test/support/sensors.js';

let test: TestApp;
// One-second check-ins: a sensor is offline three seconds after its last.
before(async () => {
  test = await startTestApp({ forwarderPollMs: 50, forwarderCommitHorizonMs: 0, checkinIntervalSeconds: 1 });
});
after(() => test.close());

const put = async (sensor: TestSensor, body: object) => {
  const response = await test.app.inject({ method: 'PUT', url: `/api/v1/sensor/${sensor.id}`, headers: as(test.adminToken), payload: body });
  assert.equal(response.statusCode, 204, response.body);
};

/** Checks in until the sensor is given an instruction of this type, then confirms it. */
async function carryOut(sensor: TestSensor, type: string, report: { is_isolating?: boolean } = {}): Promise<void> {
  const instruction = (await checkin(test, sensor)).instructions.find((i) => i.type === type);
  assert.ok(instruction, `a ${type} instruction`);
  await checkin(test, sensor, { completed: [{ id: instruction.id }], ...report });
}

it('writes each state change of a sensor once, in order, as sensor.* records', async () => {
  const created = await test.app.inject({
    method: 'POST', url: '/api/v1/forwarder/outputs', headers: as(test.adminToken),
    payload: { name: 'sensors', type: 'file', path: 'sensors.json', events_sensor: true },
  });
  assert.equal(created.statusCode, 200, created.body);
  const path = join(test.config.dataDir, 'forwarder', 'sensors.json');
  const sensor = await registerSensor(test, { computer_name: 'WIN-STATE-01' });
  const records = () => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>) : [])
    .filter((record) => record.sensor_id === sensor.id);
  const types = () => records().map((record) => record.type);

  await checkin(test, sensor);
  await put(sensor, { network_isolation_enabled: true });
  await carryOut(sensor, 'isolate', { is_isolating: true });
  await eventually(() => types().includes('sensor.isolation.confirmed'), 'the isolation confirmed');
  await eventually(() => types().includes('sensor.status.offline'), 'the sensor offline once its check-ins stop', 10_000);
  await sleep(300);
  assert.equal(types().filter((type) => type === 'sensor.status.offline').length, 1, 'offline once while it lasts');

  await checkin(test, sensor, { is_isolating: true });
  await put(sensor, { uninstall: true });
  await carryOut(sensor, 'uninstall');
  await eventually(() => types().includes('sensor.status.uninstalled'), 'the uninstall confirmed');
  await sleep(300);
  assert.deepEqual(types(), [
    'sensor.status.registered', 'sensor.isolation.requested', 'sensor.isolation.confirmed', 'sensor.status.offline',
    'sensor.status.online', 'sensor.uninstall.requested', 'sensor.status.uninstalled',
  ]);
  const registered = records()[0]!;
  assert.equal(registered.computer_name, 'WIN-STATE-01');
  assert.equal(registered.group, 'Default Group');
  assert.equal(typeof registered.timestamp, 'number');
  const offline = records()[3]!;
  assert.ok((offline.timestamp as number) > (records()[2]!.timestamp as number) + 3, 'offline three intervals after the last check-in');
});
