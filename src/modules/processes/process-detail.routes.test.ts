/**
 * A process's summary, segment list and neighbourhood through the real app, on processes a
 * registered sensor uploaded through the sensor protocol.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';
import { processEvents, registerSensor, uploadEvents, type TestSensor } from '../../../test/support/sensors.js';
import { processId } from '../../domain/process-id.js';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const CMD = 'C:\\Windows\\System32\\cmd.exe';

describe('process summary and segments', () => {
  let test: TestApp;
  let sensor: TestSensor;
  let rootId: string;
  let childId: string;
  const get = (url: string, token = test.adminToken) => test.app.inject({ url, headers: as(token) });

  before(async () => {
    test = await startTestApp();
    sensor = await registerSensor(test);
    const root = { pid: 100, start: T0, path: CMD };
    const uploaded = await uploadEvents(test, sensor, 1, [
      ...processEvents(100, T0),
      ...processEvents(102, T0 + 20, root),
      ...processEvents(101, T0 + 10, root),
      // Still running: no end event.
      ...processEvents(103, T0 + 30, root).filter((event) => event.type !== 'process_end'),
    ]);
    assert.equal(uploaded.statusCode, 200, uploaded.body);
    rootId = processId({ sensorId: sensor.id, pid: 100, startMs: T0 });
    childId = processId({ sensorId: sensor.id, pid: 101, startMs: T0 + 10 });
  });
  after(() => test.close());

  it('shows an unknown parent exactly as Carbon Black 6.x does, and the parent as {}', async () => {
    const response = await get(`/api/v1/process/${rootId}/0`);
    assert.equal(response.statusCode, 200, response.body);
    const { process, parent } = response.json();
    const sensorHex = sensor.id.toString(16).padStart(8, '0');
    assert.equal(process.parent_id, `${sensorHex}-ffff-ffff-0000-000000000000`);
    assert.equal(process.parent_unique_id, `${sensorHex}-ffff-ffff-0000-000000000000-000000000001`);
    assert.equal(process.parent_pid, -1);
    assert.equal(process.parent_name, '(unknown)');
    assert.equal(process.parent_md5, '0'.repeat(30));
    assert.deepEqual(parent, {});
  });

  it('gives the process document with the fields of reference core §3.4', async () => {
    const { process } = (await get(`/api/v1/process/${rootId}/0`)).json();
    const segmentId = process.segment_id as number;
    assert.deepEqual({ ...process, segment_id: 0, unique_id: '', last_server_update: '', min_last_server_update: '', max_last_server_update: '', ref_segment_id: [] }, {
      id: rootId, unique_id: '', segment_id: 0,
      parent_unique_id: process.parent_unique_id, parent_id: process.parent_id, parent_name: '(unknown)', parent_pid: -1, parent_md5: '0'.repeat(30),
      process_pid: 100, process_name: 'cmd.exe', path: 'c:\\windows\\system32\\cmd.exe', cmdline: 'cmd.exe /c whoami',
      process_md5: 'ad7b9c14083b52bc532fba5948342b98', process_sha256: 'a'.repeat(64),
      hostname: 'win-test-01', sensor_id: sensor.id, group: 'default group', host_type: 'workstation', os_type: 'windows',
      username: 'CORP\\alice', uid: 'S-1-5-21-1',
      start: '2026-11-20T10:00:00Z', last_update: '2026-11-20T10:00:00.01Z', last_server_update: '', terminated: true,
      comms_ip: 167838211, interface_ip: 167838211, filtering_known_dlls: false, emet_config: '',
      modload_count: 1, filemod_count: 1, regmod_count: 1, netconn_count: 1, childproc_count: 1, crossproc_count: 1, emet_count: 0, processblock_count: 0,
      min_last_update: '2026-11-20T10:00:00.01Z', max_last_update: '2026-11-20T10:00:00.01Z',
      min_last_server_update: '', max_last_server_update: '', ref_segment_id: [], watchlists: [],
    });
    assert.equal(process.unique_id, `${rootId}-${segmentId.toString(16).padStart(12, '0')}`);
    assert.deepEqual(process.ref_segment_id, [segmentId]);
    assert.equal(process.comms_ip, (10 << 24) | (1 << 16) | (2 << 8) | 3, '10.1.2.3, the sensor\'s address, as a signed integer');
  });

  it('lists children by start with their start and end, at most `children` of them', async () => {
    const { children, siblings } = (await get(`/api/v1/process/${rootId}/0?children=15`)).json();
    assert.deepEqual(children.map((c: { process_pid: number }) => c.process_pid), [101, 102, 103]);
    const [first, , running] = children;
    assert.equal(first.start, '2026-11-20T10:00:00.01Z');
    assert.equal(first.end, '2026-11-20T10:00:00.02Z');
    assert.equal(first.terminated, true);
    assert.equal(first.child_proc_type, 'exec');
    assert.equal(first.parent_id, rootId);
    assert.equal(first.parent_unique_id, `${rootId}-000000000001`);
    assert.equal(first.parent_name, 'cmd.exe');
    assert.equal(running.terminated, false);
    assert.equal(running.end, undefined);
    assert.deepEqual(siblings, [], 'no other process has an unknown parent');
    const two = (await get(`/api/v1/process/${rootId}/0?children=2`)).json();
    assert.deepEqual(two.children.map((c: { process_pid: number }) => c.process_pid), [101, 102]);
  });

  it('shows a child\'s parent document and its siblings', async () => {
    const { process, parent, siblings } = (await get(`/api/v1/process/${childId}/0`)).json();
    assert.equal(process.parent_id, rootId);
    assert.equal(process.parent_md5, 'ad7b9c14083b52bc532fba5948342b98');
    assert.equal(parent.id, rootId);
    assert.equal(parent.process_name, 'cmd.exe');
    assert.equal(parent.childproc_count, 1);
    assert.deepEqual(siblings.map((s: { process_pid: number }) => s.process_pid), [102, 103]);
  });

  it('answers v2 with the document\'s fields at the top and its relatives beside them', async () => {
    const v1 = (await get(`/api/v1/process/${childId}/0?children=5`)).json();
    const v2 = (await get(`/api/v2/process/${childId}/0?children=5`)).json();
    const { parent, children, siblings, ...document } = v2;
    assert.deepEqual(document, v1.process);
    assert.deepEqual({ parent, children, siblings }, { parent: v1.parent, children: v1.children, siblings: v1.siblings });
  });

  it('lists the segments with their non-zero event counts, and serves each one', async () => {
    const response = await get(`/api/v1/process/${rootId}/segment`);
    assert.equal(response.statusCode, 200, response.body);
    const { segments } = response.json().process;
    assert.equal(segments.length, 1);
    assert.deepEqual(Object.keys(segments[0]).sort(), ['event_counts', 'last_server_update', 'last_update', 'unique_id']);
    assert.deepEqual(segments[0].event_counts, { filemod: 1, regmod: 1, netconn: 1, modload: 1, childproc: 1, crossproc: 1 });
    const segmentId = parseInt(segments[0].unique_id.slice(37), 16);
    const one = (await get(`/api/v1/process/${rootId}/${segmentId}`)).json();
    assert.equal(one.process.segment_id, segmentId);
    assert.equal((await get(`/api/v1/process/${rootId}/1`)).json().process.segment_id, segmentId, 'segment 1 means the whole process');
    assert.equal((await get(`/api/v1/process/${rootId}`)).json().process.segment_id, segmentId, 'no segment means the whole process');
  });

  it('answers 404 for what names no process or segment, and 400 for a bad children count', async () => {
    for (const url of [
      `/api/v1/process/not-a-guid/0`,
      `/api/v1/process/${processId({ sensorId: sensor.id, pid: 999, startMs: T0 })}/0`,
      `/api/v1/process/${rootId}/12345`,
      `/api/v1/process/${rootId}/abc`,
      `/api/v2/process/${rootId}/-1`,
      `/api/v4/process/${rootId}/12345/event`,
      `/api/v1/process/not-a-guid/segment`,
    ]) {
      const response = await get(url);
      assert.equal(response.statusCode, 404, url);
      assert.match(response.body, /404 Not Found/);
    }
    const bad = await get(`/api/v1/process/${rootId}/0?children=-1`);
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().reason, 'invalid_request');
  });

  it('shows processes only to users who may view their group, and relatives only from such groups', async () => {
    const created = await test.app.inject({ method: 'POST', url: '/api/group', headers: as(test.adminToken), payload: { name: 'Servers', site_id: 1 } });
    const servers = created.json().id as number;
    const team = async (name: string, groupId: number, category: string) => (await test.app.inject({
      method: 'POST', url: '/api/team', headers: as(test.adminToken), payload: { name, group_access: [{ group_id: groupId, access_category: category }] },
    })).json().id as number;
    const viewer = await createUser(test, { username: 'proc-viewer', teams: [await team('viewers', 1, 'Viewer')] });
    const outsider = await createUser(test, { username: 'proc-outsider', teams: [await team('outsiders', servers, 'Administrator')] });
    assert.equal((await get(`/api/v1/process/${rootId}/0`, viewer)).json().children.length, 3);
    for (const url of [`/api/v1/process/${rootId}/0`, `/api/v1/process/${rootId}/segment`, `/api/v4/process/${rootId}/0/event`, `/api/v1/process/${rootId}/0/preview`]) {
      assert.equal((await get(url, outsider)).statusCode, 404, url);
    }
  });

  it('answers 409 for threat-intelligence hits, which need a cloud Vigil does not share with', async () => {
    const response = await get(`/api/v1/process/${rootId}/0/threat_intel_hits`);
    assert.equal(response.statusCode, 409);
    assert.equal(response.json().reason, 'conflict');
  });

  it('counts the hosts and process segments of a binary', async () => {
    const response = await get('/api/v1/process/host/count?cb.freqver=1&name=md5&md5=AD7B9C14083B52BC532FBA5948342B98');
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { hostCount: 1, globalCount: 1, numDocs: 4 });
    assert.equal((await get('/api/v1/process/host/count?name=md5&md5=xyz')).statusCode, 400);
  });
});
