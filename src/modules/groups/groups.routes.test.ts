/** Sensor groups over HTTP, as cbapi and the reference (core §7) use them. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';
import { registerSensor } from '../../../test/support/sensors.js';

/** Every field of reference core §7.2, with the JSON type it must have. */
const FIELD_TYPES: Record<string, string> = {
  id: 'integer', name: 'string', site_id: 'integer', sensorbackend_server: 'string', datastore_server: 'null',
  sensor_exe_name: 'string', sensor_version: 'string', sensor_version_windows: 'string', sensor_version_osx: 'string',
  sensor_version_linux: 'string', alert_criticality: 'integer', banning_enabled: 'boolean', tamper_level: 'integer',
  max_licenses: 'integer', quota_eventlog_bytes: 'integer', quota_eventlog_percent: 'integer',
  quota_storefile_bytes: 'integer', quota_storefile_percent: 'integer', collect_cross_procs: 'boolean',
  collect_emet_events: 'boolean', collect_filemods: 'boolean', collect_filewritemd5s: 'boolean',
  collect_moduleinfo: 'boolean', collect_moduleloads: 'boolean', collect_netconns: 'boolean',
  collect_nonbinary_filewrites: 'boolean', collect_processes: 'boolean', collect_regmods: 'boolean',
  collect_storefiles: 'boolean', collect_usercontext: 'boolean', collect_amsi: 'boolean', filter_known_dlls: 'boolean',
  process_filter_level: 'integer', vdi_enabled: 'boolean', address_resolution_hint: 'string', server_cert_id: 'integer',
  number_of_hosts: 'integer', team_access: 'array', isolation_exclusions: 'array', event_exclusions: 'array',
};

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (Number.isInteger(value)) return 'integer';
  return typeof value;
}

describe('sensor groups API', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp();
  });
  after(() => test.close());

  const admin = () => as(test.adminToken);
  const createGroup = async (payload: Record<string, unknown>): Promise<number> => {
    const created = await test.app.inject({ method: 'POST', url: '/api/group', headers: admin(), payload });
    assert.equal(created.statusCode, 200, created.body);
    return (created.json() as { id: number }).id;
  };
  const readGroup = async (id: number, token = test.adminToken) =>
    (await test.app.inject({ url: `/api/group/${id}`, headers: as(token) })).json()[0];

  it('has the Default Group, every field present with its type, as a one-element array', async () => {
    const read = await test.app.inject({ url: '/api/group/1', headers: admin() });
    assert.equal(read.statusCode, 200);
    const body = read.json();
    assert.ok(Array.isArray(body));
    assert.equal(body.length, 1);
    const group = body[0] as Record<string, unknown>;
    assert.deepEqual(Object.keys(group).sort(), Object.keys(FIELD_TYPES).sort());
    for (const [field, type] of Object.entries(FIELD_TYPES)) assert.equal(jsonType(group[field]), type, field);
    assert.equal(group.name, 'Default Group');
    assert.equal(group.site_id, 1);
    assert.equal(group.sensorbackend_server, `https://${test.config.host}:${test.config.port}`);
    assert.equal(group.alert_criticality, 3);
    assert.equal(group.banning_enabled, true);
    assert.equal(group.max_licenses, -1);
    assert.equal(group.number_of_hosts, 0);
  });

  it('creates a group from the body cbapi sends, answering only its id, and serves it under every prefix', async () => {
    const created = await test.app.inject({
      method: 'POST', url: '/api/group', headers: admin(),
      payload: { id: null, name: 'Servers', site_id: 1, sensorbackend_server: 'https://edr.example.com:443', quota_eventlog_bytes: '2147483648' },
    });
    assert.equal(created.statusCode, 200);
    const { id } = created.json();
    assert.deepEqual(created.json(), { id });
    assert.ok(Number.isInteger(id));

    const reads = await Promise.all(['/api/group', '/api/v2/group', '/api/v3/group'].map((prefix) =>
      test.app.inject({ url: `${prefix}/${id}`, headers: admin() })));
    assert.deepEqual(reads.map((r) => r.statusCode), [200, 200, 200]);
    const [group] = reads[0]!.json();
    for (const read of reads) assert.deepEqual(read.json(), [group]);
    assert.equal(group.name, 'Servers');
    assert.equal(group.sensorbackend_server, 'https://edr.example.com:443');
    assert.equal(group.quota_eventlog_bytes, 2147483648);
    assert.equal(group.quota_storefile_bytes, 1073741824);
    assert.equal(group.collect_processes, true);

    const list = await test.app.inject({ url: '/api/v3/group', headers: admin() });
    assert.equal(list.statusCode, 200);
    const listed = list.json() as { id: number }[];
    assert.deepEqual(listed.find((g) => g.id === id), group);
    assert.ok(listed.some((g) => g.id === 1));
  });

  it('updates with the record as read (cbapi PUT), answering an empty 200, and keeps what was not sent', async () => {
    const id = await createGroup({ name: 'Workstations', alert_criticality: 4 });
    const record = await readGroup(id);
    const put = await test.app.inject({
      method: 'PUT', url: `/api/v3/group/${id}`, headers: admin(),
      payload: { ...record, vdi_enabled: true, tamper_level: 1, some_newer_field: 'ignored' },
    });
    assert.equal(put.statusCode, 200);
    assert.equal(put.body, '');
    assert.match(String(put.headers['content-type']), /^application\/json/);
    assert.deepEqual(await readGroup(id), { ...record, vdi_enabled: true, tamper_level: 1 });

    const partial = await test.app.inject({ method: 'PUT', url: `/api/group/${id}`, headers: admin(), payload: { banning_enabled: false } });
    assert.equal(partial.statusCode, 200);
    assert.deepEqual(await readGroup(id), { ...record, vdi_enabled: true, tamper_level: 1, banning_enabled: false });
  });

  it('answers 409 for a taken name, on create and on rename', async () => {
    const id = await createGroup({ name: 'Laptops' });
    const again = await test.app.inject({ method: 'POST', url: '/api/group', headers: admin(), payload: { name: 'Laptops' } });
    assert.equal(again.statusCode, 409);
    assert.match(again.json().message, /Laptops already exists/);
    const rename = await test.app.inject({ method: 'PUT', url: `/api/group/${id}`, headers: admin(), payload: { name: 'Default Group' } });
    assert.equal(rename.statusCode, 409);
  });

  it('deletes a group with an empty 200, but never the Default Group', async () => {
    const id = await createGroup({ name: 'Temporary' });
    const deleted = await test.app.inject({ method: 'DELETE', url: `/api/v2/group/${id}`, headers: admin() });
    assert.equal(deleted.statusCode, 200);
    assert.equal(deleted.body, '');
    assert.equal((await test.app.inject({ url: `/api/group/${id}`, headers: admin() })).statusCode, 404);
    assert.equal((await test.app.inject({ method: 'DELETE', url: `/api/group/${id}`, headers: admin() })).statusCode, 404);
    const defaultGroup = await test.app.inject({ method: 'DELETE', url: '/api/group/1', headers: admin() });
    assert.equal(defaultGroup.statusCode, 403);
    assert.equal((await test.app.inject({ url: '/api/group/1', headers: admin() })).statusCode, 200);
  });

  it('keeps a group that holds sensors, answering 409 until they are moved out', async () => {
    const id = await createGroup({ name: 'Occupied' });
    const sensor = await registerSensor(test, {}, id);
    const refused = await test.app.inject({ method: 'DELETE', url: `/api/group/${id}`, headers: admin() });
    assert.equal(refused.statusCode, 409);
    assert.match(refused.json().message, /sensors/);
    const moved = await test.app.inject({ method: 'PUT', url: `/api/v1/sensor/${sensor.id}`, headers: admin(), payload: { group_id: 1 } });
    assert.equal(moved.statusCode, 204);
    assert.equal((await test.app.inject({ method: 'DELETE', url: `/api/group/${id}`, headers: admin() })).statusCode, 200);
  });

  it('answers 404 for an unknown id and 400 for one that is not an integer', async () => {
    assert.equal((await test.app.inject({ url: '/api/group/4242', headers: admin() })).statusCode, 404);
    const put = await test.app.inject({ method: 'PUT', url: '/api/group/4242', headers: admin(), payload: { name: 'x' } });
    assert.equal(put.statusCode, 404);
    assert.equal((await test.app.inject({ url: '/api/group/abc', headers: admin() })).statusCode, 400);
  });

  it('rejects a bad body with a 400 naming the field', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ alert_criticality: 3 }, /name/],
      [{ name: 'Bad', alert_criticality: 9 }, /alert_criticality/],
      [{ name: 'Bad', quota_storefile_bytes: 'lots' }, /quota_storefile_bytes/],
      [{ name: 'Bad', address_resolution_hint: 'ipx' }, /address_resolution_hint/],
      [{ name: 'Bad', site_id: 4242 }, /site_id/],
      [{ name: 'Bad', team_access: [{ team_id: 4242, access_category: 'Viewer' }] }, /team_access/],
    ];
    for (const [payload, field] of cases) {
      const response = await test.app.inject({ method: 'POST', url: '/api/group', headers: admin(), payload });
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assert.match(response.json().message, field);
    }
    const list = (await test.app.inject({ url: '/api/group', headers: admin() })).json() as { name: string }[];
    assert.ok(!list.some((g) => g.name === 'Bad'));
  });

  it('answers 401 without a token', async () => {
    assert.equal((await test.app.inject({ url: '/api/group' })).statusCode, 401);
    assert.equal((await test.app.inject({ method: 'POST', url: '/api/v3/group', payload: { name: 'x' } })).statusCode, 401);
  });

  it('shows each team\'s access and sets the access of the teams a PUT lists', async () => {
    const id = await createGroup({ name: 'Finance' });
    const team = (await test.app.inject({
      method: 'POST', url: '/api/team', headers: admin(),
      payload: { name: 'Auditors', group_access: [{ group_id: id, access_category: 'Viewer' }] },
    })).json();
    const access = (await readGroup(id)).team_access as { team_id: number }[];
    assert.deepEqual(access.find((a) => a.team_id === team.id), { team_id: team.id, team_name: 'Auditors', access_category: 'Viewer' });
    assert.equal((await readGroup(1)).team_access.find((a: { team_id: number }) => a.team_id === team.id).access_category, 'No Access');

    const teamAccessOf = async () => ((await test.app.inject({ url: `/api/team/${team.id}`, headers: admin() })).json()
      .group_access as { group_id: number; access_category: string }[]).find((a) => a.group_id === id)?.access_category;
    const raise = [{ team_id: team.id, team_name: 'Auditors', access_category: 'Administrator' }];
    assert.equal((await test.app.inject({ method: 'PUT', url: `/api/group/${id}`, headers: admin(), payload: { team_access: raise } })).statusCode, 200);
    assert.equal(await teamAccessOf(), 'Administrator');
    const revoke = [{ team_id: team.id, access_category: 'No Access' }];
    assert.equal((await test.app.inject({ method: 'PUT', url: `/api/group/${id}`, headers: admin(), payload: { team_access: revoke } })).statusCode, 200);
    assert.equal(await teamAccessOf(), 'No Access');
  });

  it('lets users who are not global admins see only the groups their teams grant, and change none', async () => {
    const visible = await createGroup({ name: 'Visible' });
    const hidden = await createGroup({ name: 'Hidden' });
    const team = (await test.app.inject({
      method: 'POST', url: '/api/team', headers: admin(),
      payload: { name: 'Viewers', group_access: [{ group_id: visible, access_category: 'Viewer' }] },
    })).json();
    const token = await createUser(test, { username: 'viewer', teams: [team.id] });

    const list = await test.app.inject({ url: '/api/group', headers: as(token) });
    assert.equal(list.statusCode, 200);
    assert.deepEqual((list.json() as { id: number }[]).map((g) => g.id), [visible]);
    assert.equal((await readGroup(visible, token)).name, 'Visible');
    assert.equal((await test.app.inject({ url: `/api/group/${hidden}`, headers: as(token) })).statusCode, 403);
    assert.equal((await test.app.inject({ url: '/api/group/1', headers: as(token) })).statusCode, 403);

    const writes = [
      await test.app.inject({ method: 'POST', url: '/api/group', headers: as(token), payload: { name: 'Mine' } }),
      await test.app.inject({ method: 'PUT', url: `/api/group/${visible}`, headers: as(token), payload: { name: 'Renamed' } }),
      await test.app.inject({ method: 'DELETE', url: `/api/group/${visible}`, headers: as(token) }),
    ];
    assert.deepEqual(writes.map((r) => r.statusCode), [403, 403, 403]);
    assert.equal((await readGroup(visible)).name, 'Visible');
  });
});
