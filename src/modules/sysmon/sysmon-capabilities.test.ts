/**
 * A Sysmon host is a sensor that only sends events: what would need an agent (isolation, restart,
 * uninstall, live response) is refused with a 409 that says why, at once, so cbapi's isolate()
 * fails instead of polling for an isolation that never comes. Vigil's own sensors are unchanged.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, startTestApp, type TestApp } from '../../../test/support/app.js';
import { registerSensor } from '../../../test/support/sensors.js';

describe('Sysmon hosts as sensors', () => {
  let test: TestApp;
  let sensorId: number;
  before(async () => {
    test = await startTestApp({ liveResponseEnabled: true });
    const { key } = (await test.app.inject({ method: 'POST', url: '/api/v1/group/1/ingest_key', headers: as(test.adminToken), payload: {} })).json();
    const line = JSON.stringify({
      EventID: 1, Channel: 'Microsoft-Windows-Sysmon/Operational', Hostname: 'SYSMON-ONLY.corp.example', UtcTime: '2024-05-01 10:00:00.000',
      ProcessGuid: '{11111111-0000-6632-0000-000000000001}', ProcessId: '10', Image: 'C:\\x.exe',
    });
    const reply = (await test.app.inject({ method: 'POST', url: '/ingest/v1/sysmon', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' }, payload: line })).json();
    sensorId = reply.hosts[0].sensor_id;
  });
  after(async () => test.close());

  const put = (id: number, body: object) => test.app.inject({ method: 'PUT', url: `/api/v1/sensor/${id}`, headers: as(test.adminToken), payload: body });

  it('shows the host with its name, domain and capabilities', async () => {
    const sensor = (await test.app.inject({ url: `/api/v1/sensor/${sensorId}`, headers: as(test.adminToken) })).json();
    assert.equal(sensor.computer_name, 'SYSMON-ONLY');
    assert.equal(sensor.computer_dns_name, 'SYSMON-ONLY.corp.example');
    assert.equal(sensor.os_environment_display_string, 'Windows (Sysmon)');
    assert.equal(sensor.supports_isolation, false);
    assert.equal(sensor.supports_cblr, false);
  });

  it('refuses isolation, restart and uninstall with a 409 that says why, and changes nothing', async () => {
    for (const body of [{ network_isolation_enabled: true }, { restart_queued: true }, { uninstall: true }]) {
      const response = await put(sensorId, body);
      assert.equal(response.statusCode, 409, JSON.stringify(body));
      assert.match(response.json().message, /Sysmon host, which only sends events/);
    }
    const sensor = (await test.app.inject({ url: `/api/v1/sensor/${sensorId}`, headers: as(test.adminToken) })).json();
    assert.deepEqual([sensor.network_isolation_enabled, sensor.restart_queued, sensor.uninstall], [false, false, false]);
    assert.equal((await put(sensorId, { notes: 'domain controller', network_isolation_enabled: false })).statusCode, 204, 'what needs no agent still works');
  });

  it('refuses a live response session with a 409', async () => {
    const response = await test.app.inject({ method: 'POST', url: '/api/v1/cblr/session', headers: as(test.adminToken), payload: { sensor_id: sensorId } });
    assert.equal(response.statusCode, 409);
    assert.match(response.json().message, /Sysmon host/);
  });

  it('leaves Vigil\'s own sensors able to do all of it', async () => {
    const sensor = await registerSensor(test);
    assert.equal((await put(sensor.id, { network_isolation_enabled: true })).statusCode, 204);
    const record = (await test.app.inject({ url: `/api/v1/sensor/${sensor.id}`, headers: as(test.adminToken) })).json();
    assert.equal(record.supports_isolation, true);
    const session = await test.app.inject({ method: 'POST', url: '/api/v1/cblr/session', headers: as(test.adminToken), payload: { sensor_id: sensor.id } });
    assert.equal(session.statusCode, 200);
  });

  it('never lets a Sysmon host authenticate to the sensor protocol', async () => {
    for (const secret of ['', 'x']) {
      const response = await test.app.inject({ method: 'POST', url: '/sensor/v1/checkin', headers: { authorization: `Sensor ${sensorId}:${secret}` }, payload: {} });
      assert.equal(response.statusCode, 401);
    }
  });
});
