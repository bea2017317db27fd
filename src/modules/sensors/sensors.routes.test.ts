/** The analyst's sensor API (reference core §6) over HTTP, on sensors that registered and checked in for real. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, createUser, openAppDatabase, startTestApp, testStore, type TestApp } from '../../../test/support/app.js';
import { checkin, registerFleet, registerSensor, type TestSensor } from '../../../test/support/sensors.js';
import { Sensor } from './sensors.schemas.js';

const RECORD_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}[+-]\d{2}:\d{2}$/;

/** Field types of the real 6.2 record (reference core §6.2). */
const TEXT_FIELDS = [
  'systemvolume_total_size', 'systemvolume_free_size', 'physical_memory_size', 'clock_delta', 'sensor_uptime', 'uptime',
  'num_eventlog_bytes', 'num_storefiles_bytes', 'boot_id', 'parity_host_id', 'build_version_string', 'computer_name',
  'computer_dns_name', 'computer_sid', 'os_environment_display_string', 'sensor_health_message', 'status', 'network_adapters',
  'emet_telemetry_path', 'emet_version', 'emet_dump_flags', 'emet_report_setting', 'emet_exploit_action',
];
const INTEGER_FIELDS = [
  'id', 'build_id', 'os_environment_id', 'os_type', 'group_id', 'node_id', 'shard_id', 'cookie', 'power_state',
  'sensor_health_status', 'emet_process_count',
];
const BOOLEAN_FIELDS = [
  'supports_cblr', 'supports_isolation', 'supports_2nd_gen_modloads', 'is_isolating', 'network_isolation_enabled',
  'restart_queued', 'uninstall', 'display', 'emet_is_gpo',
];
const TIME_FIELDS = ['last_checkin_time', 'next_checkin_time', 'registration_time', 'last_update', 'license_expiration'];

describe('sensors API', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp();
  });
  after(() => test.close());

  const get = (url: string, token = test.adminToken) => test.app.inject({ url, headers: as(token) });
  const put = (id: number, payload: Record<string, unknown>, token = test.adminToken) =>
    test.app.inject({ method: 'PUT', url: `/api/v1/sensor/${id}`, headers: as(token), payload });
  const ids = (sensors: { id: number }[]) => sensors.map((sensor) => sensor.id);

  async function createGroup(name: string): Promise<number> {
    const created = await test.app.inject({ method: 'POST', url: '/api/group', headers: as(test.adminToken), payload: { name, site_id: 1 } });
    assert.equal(created.statusCode, 200, created.body);
    return created.json().id;
  }

  async function userWith(username: string, access: { group_id: number; access_category: string }[]): Promise<string> {
    const team = await test.app.inject({ method: 'POST', url: '/api/team', headers: as(test.adminToken), payload: { name: `${username}-team`, group_access: access } });
    assert.equal(team.statusCode, 200, team.body);
    return createUser(test, { username, teams: [team.json().id] });
  }

  it('reads one sensor with every field of the real record, typed as Carbon Black typed them', async () => {
    const sensor = await registerSensor(test, {
      computer_name: 'WIN7-HYPERV-2', computer_sid: 'S-1-5-21-850238481', os_environment_display_string: 'Windows 7 Professional Service Pack 1, 32-bit',
      build_id: 11, physical_memory_size: 1073274880, systemvolume_total_size: 21367877632, systemvolume_free_size: 4437213184,
      network_adapters: [{ ip: '192.168.1.163', mac: '00155D019C08' }, { ip: '10.0.0.5', mac: '00155d019c09' }],
    });
    await checkin(test, sensor, { sensor_time: Date.now() + 106_000, uptime: 2166755, sensor_uptime: 2166877, health_status: 95, health_message: 'Elevated memory usage' });
    const response = await get(`/api/v1/sensor/${sensor.id}`);
    assert.equal(response.statusCode, 200);
    const record = response.json();
    for (const field of TEXT_FIELDS) assert.equal(typeof record[field], 'string', field);
    for (const field of INTEGER_FIELDS) assert.ok(Number.isInteger(record[field]), field);
    for (const field of BOOLEAN_FIELDS) assert.equal(typeof record[field], 'boolean', field);
    for (const field of TIME_FIELDS) assert.match(record[field], RECORD_TIME, field);
    for (const field of ['uninstalled', 'notes', 'event_log_flush_time']) assert.equal(record[field], null, field);
    assert.deepEqual(
      {
        id: record.id, group_id: record.group_id, os_type: record.os_type, computer_name: record.computer_name, build_id: record.build_id,
        network_adapters: record.network_adapters, physical_memory_size: record.physical_memory_size, uptime: record.uptime,
        sensor_uptime: record.sensor_uptime, clock_delta: record.clock_delta, status: record.status,
        sensor_health_status: record.sensor_health_status, sensor_health_message: record.sensor_health_message,
      },
      {
        id: sensor.id, group_id: 1, os_type: 1, computer_name: 'WIN7-HYPERV-2', build_id: 11,
        network_adapters: '192.168.1.163,00155d019c08|10.0.0.5,00155d019c09|', physical_memory_size: '1073274880', uptime: '2166755',
        sensor_uptime: '2166877', clock_delta: '106', status: 'Online', sensor_health_status: 95, sensor_health_message: 'Elevated memory usage',
      },
    );
    const last = Date.parse(record.last_checkin_time.replace(' ', 'T'));
    assert.equal(Date.parse(record.next_checkin_time.replace(' ', 'T')) - last, test.config.checkinIntervalSeconds * 1000);

    assert.equal((await get('/api/v1/sensor/99999')).statusCode, 404);
    assert.equal((await get('/api/v1/sensor/abc')).statusCode, 400);
  });

  it('lists sensors unpaged, filtered by case-sensitive hostname or ip substrings and by group', async () => {
    const group = await createGroup('Filters');
    const alpha = await registerSensor(test, { computer_name: 'ALPHA-WEB', network_adapters: [{ ip: '172.20.1.10', mac: 'aaaaaaaaaaaa' }] }, group);
    const beta = await registerSensor(test, { computer_name: 'BETA-WEB', network_adapters: [{ ip: '172.20.2.10', mac: 'bbbbbbbbbbbb' }] }, group);
    const list = async (query: string) => {
      const response = await get(`/api/v1/sensor?${query}`);
      assert.equal(response.statusCode, 200, response.body);
      return ids(response.json());
    };
    assert.deepEqual(await list(`groupid=${group}`), [alpha.id, beta.id]);
    assert.deepEqual(await list('hostname=-WEB'), [alpha.id, beta.id]);
    assert.deepEqual(await list('hostname=-web'), [], 'case-sensitive, and an empty array rather than a 500');
    assert.deepEqual(await list('ip=172.20.2'), [beta.id]);
    assert.deepEqual(await list('ip=bbbb'), [], 'a MAC is not an address');
    assert.deepEqual(await list('ip=172.20&hostname=ALPHA'), [alpha.id, beta.id], 'ip alone counts when both are given');
    assert.deepEqual(await list(`groupid=${group}&hostname=BETA`), [beta.id]);
    assert.deepEqual(await list('inactive_filter_days=1&hostname=-WEB'), [alpha.id, beta.id]);
    assert.deepEqual(await list('inactive_filter_days=0&hostname=-WEB'), [alpha.id, beta.id], '0 is no limit');
    for (const bad of ['groupid=abc', 'ip=10.0.0.1%7C', 'hostname=']) {
      assert.equal((await get(`/api/v1/sensor?${bad}`)).statusCode, 400, bad);
    }
  });

  it('pages through /api/v2/sensor the way cbapi does, meeting every sensor exactly once', async () => {
    const group = await createGroup('Paging');
    const names = ['HOST-B', 'HOST-A', 'HOST-B', 'HOST-C', 'HOST-A', 'HOST-B', 'HOST-A', 'HOST-D', 'HOST-B'];
    const registered: TestSensor[] = [];
    for (const name of names) registered.push(await registerSensor(test, { computer_name: name }, group));

    const page = async (query: string) => {
      const response = await get(`/api/v2/sensor?${query}`);
      assert.equal(response.statusCode, 200, response.body);
      return response.json() as { results: { id: number; computer_name: string }[]; total_results: number; facets: object };
    };
    const count = await page(`groupid=${group}&start=0&rows=0`);
    assert.deepEqual(count, { results: [], total_results: names.length, facets: {} });

    for (const dir of ['asc', 'desc']) {
      const seen: { id: number; computer_name: string }[] = [];
      for (let start = 0; start < count.total_results; start += 2) {
        const { results, total_results } = await page(`q=groupid:${group}&rows=2&start=${start}&sort.col=computer_name&sort.dir=${dir}`);
        assert.equal(total_results, names.length);
        seen.push(...results);
      }
      assert.deepEqual(ids(seen).sort((a, b) => a - b), ids(registered).sort((a, b) => a - b), `${dir}: each sensor once`);
      const sorted = [...seen].sort((x, y) => x.computer_name.localeCompare(y.computer_name) || x.id - y.id);
      assert.deepEqual(seen, dir === 'asc' ? sorted : sorted.reverse());
    }

    assert.deepEqual(ids((await page(`groupid=${group}&q=hostname:HOST-D&rows=10`)).results), [registered[7]!.id]);
    for (const bad of ['sort.col=secret_hash', 'sort.dir=sideways', 'q=computer_name:HOST', 'q=ip:a|b', 'rows=-1', 'start=x']) {
      assert.equal((await get(`/api/v2/sensor?${bad}`)).statusCode, 400, bad);
    }
  });

  it('shows each user only the sensors of groups their teams may view, and lets only group administrators change them', async () => {
    const mine = await createGroup('Visible');
    const theirs = await createGroup('Hidden');
    const seen = await registerSensor(test, { computer_name: 'SEEN' }, mine);
    const hidden = await registerSensor(test, { computer_name: 'HIDDEN' }, theirs);
    const viewer = await userWith('sensor-viewer', [{ group_id: mine, access_category: 'Viewer' }]);
    const admin = await userWith('sensor-admin', [{ group_id: mine, access_category: 'Administrator' }]);

    assert.deepEqual(ids((await get('/api/v1/sensor', viewer)).json()), [seen.id]);
    assert.deepEqual(ids((await get('/api/v2/sensor?rows=100', viewer)).json().results), [seen.id]);
    assert.deepEqual((await get(`/api/v1/sensor?groupid=${theirs}`, viewer)).json(), []);
    assert.deepEqual((await get('/api/v1/sensor/statistics', viewer)).json(), {
      sensor_count: 1, active_sensor_count: 1, num_eventlog_bytes: 0, num_storefile_bytes: 0,
    });
    assert.equal((await get(`/api/v1/sensor/${seen.id}`, viewer)).statusCode, 200);
    assert.equal((await get(`/api/v1/sensor/${hidden.id}`, viewer)).statusCode, 404, 'hidden like a missing sensor');
    assert.equal((await put(hidden.id, { network_isolation_enabled: true }, admin)).statusCode, 404);

    const denied = await put(seen.id, { network_isolation_enabled: true }, viewer);
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().reason, 'forbidden');
    assert.equal((await put(seen.id, { network_isolation_enabled: true }, admin)).statusCode, 204);
    assert.equal((await get(`/api/v1/sensor/${seen.id}`, viewer)).json().network_isolation_enabled, true);
    assert.equal((await put(seen.id, { group_id: theirs }, admin)).statusCode, 403, 'moving takes administrator access to the new group too');
  });

  it('moves a sensor to another group, which then counts it and lists it', async () => {
    const from = await createGroup('Move from');
    const to = await createGroup('Move to');
    const sensor = await registerSensor(test, { computer_name: 'MOVER' }, from);
    const hosts = async (group: number) => (await get(`/api/v3/group/${group}`)).json()[0].number_of_hosts;
    assert.deepEqual([await hosts(from), await hosts(to)], [1, 0]);

    assert.equal((await put(sensor.id, { group_id: to })).statusCode, 204);
    assert.equal((await get(`/api/v1/sensor/${sensor.id}`)).json().group_id, to);
    assert.deepEqual([await hosts(from), await hosts(to)], [0, 1]);
    assert.deepEqual(ids((await get(`/api/v1/sensor?groupid=${to}`)).json()), [sensor.id]);

    const unknown = await put(sensor.id, { group_id: 99999 });
    assert.equal(unknown.statusCode, 400);
    assert.match(unknown.json().message, /group_id/);
  });

  it('keeps notes and a flush deadline, and refuses a deadline that is not a time', async () => {
    const sensor = await registerSensor(test);
    assert.equal((await put(sensor.id, { notes: 'Finance laptop', event_log_flush_time: 'Wed, 01 Jan 2020 00:00:00 GMT' })).statusCode, 204);
    const record = (await get(`/api/v1/sensor/${sensor.id}`)).json();
    assert.equal(record.notes, 'Finance laptop');
    assert.match(record.event_log_flush_time, RECORD_TIME);
    assert.equal(Date.parse(record.event_log_flush_time.replace(' ', 'T')), Date.UTC(2020, 0, 1));
    assert.equal((await put(sensor.id, record)).statusCode, 204, 'the record as read goes back unchanged');
    assert.equal((await get(`/api/v1/sensor/${sensor.id}`)).json().event_log_flush_time, record.event_log_flush_time);
    assert.equal((await put(sensor.id, { notes: null, event_log_flush_time: null })).statusCode, 204);
    assert.deepEqual(
      [(await get(`/api/v1/sensor/${sensor.id}`)).json().notes, (await get(`/api/v1/sensor/${sensor.id}`)).json().event_log_flush_time],
      [null, null],
    );
    const bad = await put(sensor.id, { event_log_flush_time: 'soon' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().message, /event_log_flush_time/);
    assert.equal((await put(sensor.id, { network_isolation_enabled: 'maybe' })).statusCode, 400);
    assert.equal((await put(99999, { notes: 'x' })).statusCode, 404);
  });

  it('answers the diagnostics lists cbapi reads (queued, activity, resource status), empty, for visible sensors only', async () => {
    const sensor = await registerSensor(test);
    for (const list of ['queued', 'activity', 'resourcestatus']) {
      const response = await get(`/api/v1/sensor/${sensor.id}/${list}`);
      assert.equal(response.statusCode, 200, list);
      assert.deepEqual(response.json(), []);
      assert.equal((await get(`/api/v1/sensor/99999/${list}`)).statusCode, 404, list);
    }
  });

  it('counts every sensor and the ones seen in the last day for a global admin', async () => {
    const stats = (await get('/api/v1/sensor/statistics')).json();
    const all = (await get('/api/v1/sensor')).json() as unknown[];
    assert.equal(stats.sensor_count, all.length);
    assert.equal(stats.active_sensor_count, all.length, 'every sensor here registered moments ago');
  });

  it('lists every sensor when one holds a value a client never could have sent (a database from before numbers were bounded)', {
    skip: testStore() === 'postgres' && 'such values were only ever stored by older SQLite databases; PostgreSQL columns refuse them',
  }, async () => {
    const odd = await registerSensor(test, { computer_name: 'ODD-VALUES' });
    const db = openAppDatabase(test);
    after(() => db.close());
    await db.run(
      "UPDATE sensors SET build_id = ?, physical_memory_size = 'lots', uptime = ?, health_status = 1.5 WHERE id = ?",
      [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, odd.id],
    );
    const list = await get('/api/v1/sensor');
    assert.equal(list.statusCode, 200, list.body);
    const record = (list.json() as { id: number; build_id: number; physical_memory_size: string; sensor_health_status: number }[])
      .find((sensor) => sensor.id === odd.id)!;
    assert.equal(record.build_id, 0);
    assert.equal(record.physical_memory_size, '0');
    assert.equal(record.sensor_health_status, 0);
  });

  it('lists a fleet of several pages: every sensor once, by id, each with exactly the record\'s fields', async () => {
    await registerFleet(test, 1100, 'FLEET');
    const listed: Record<string, unknown>[] = (await get('/api/v1/sensor')).json();
    const listedIds = listed.map((sensor) => sensor.id as number);
    assert.deepEqual(listedIds, [...listedIds].sort((a, b) => a - b));
    assert.equal(new Set(listedIds).size, listedIds.length);
    assert.equal(listed.filter((sensor) => String(sensor.computer_name).startsWith('FLEET-')).length, 1100);
    const fields = Object.keys(Sensor.properties).sort();
    for (const sensor of listed) assert.deepEqual(Object.keys(sensor).sort(), fields);
    const statistics = (await get('/api/v1/sensor/statistics')).json();
    assert.equal(statistics.sensor_count, listed.length);
  });
});
