/**
 * Investigations and tagged events over HTTP, on processes stored by the real sensor protocol, as
 * cbapi's Investigation and TaggedEvent models and the legacy bindings call them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { processId } from '../../domain/process-id.js';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';
import { processEvents, registerSensor, uploadEvents } from '../../../test/support/sensors.js';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const RECORD_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}[+-]\d{2}:\d{2}$/;

describe('investigations API', () => {
  let test: TestApp;
  let shell: string;
  let labProcess: string;
  let labGroup: number;
  let viewer: string;
  before(async () => {
    test = await startTestApp();
    const sensor = await registerSensor(test, { computer_name: 'INV-HOST' });
    assert.equal((await uploadEvents(test, sensor, 1, processEvents(4100, T0))).statusCode, 200);
    shell = processId({ sensorId: sensor.id, pid: 4100, startMs: T0 });
    labGroup = (await test.app.inject({ method: 'POST', url: '/api/group', headers: admin(), payload: { name: 'Investigation lab' } })).json().id;
    const lab = await registerSensor(test, { computer_name: 'INV-LAB' }, labGroup);
    assert.equal((await uploadEvents(test, lab, 1, processEvents(4200, T0))).statusCode, 200);
    labProcess = processId({ sensorId: lab.id, pid: 4200, startMs: T0 });
    const team = (await test.app.inject({
      method: 'POST', url: '/api/team', headers: admin(),
      payload: { name: 'Default viewers', group_access: [{ group_id: 1, access_category: 'Viewer' }] },
    })).json();
    viewer = await createUser(test, { username: 'inv-viewer', teams: [team.id] });
  });
  after(() => test.close());

  function admin() {
    return as(test.adminToken);
  }
  const inject = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, token = test.adminToken) =>
    test.app.inject({ method, url, headers: as(token), ...(payload ? { payload } : {}) });
  const ok = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, token = test.adminToken) => {
    const response = await inject(method, url, payload, token);
    assert.equal(response.statusCode, 200, `${method} ${url}: ${response.body}`);
    return response.json();
  };

  it('has the Default Investigation, id 1, made by the system', async () => {
    const [first] = await ok('GET', '/api/investigations');
    assert.deepEqual({ ...first, date_started: '', last_updated: '' },
      { id: 1, name: 'Default Investigation', notes: '', created_by_user_id: '', date_started: '', last_updated: '' });
    assert.match(first.date_started, RECORD_TIME);
    assert.deepEqual(await ok('GET', '/api/investigations/1'), first);
  });

  it('creates an investigation answering its id, renames it, and deletes it with its tagged events', async () => {
    const created = await ok('POST', '/api/investigations', { id: null, name: 'Lateral movement', notes: 'from the VPN' });
    assert.deepEqual(Object.keys(created), ['id']);
    const read = await ok('GET', `/api/investigations/${created.id}`);
    assert.deepEqual([read.name, read.notes, read.created_by_user_id], ['Lateral movement', 'from the VPN', 'admin']);
    assert.deepEqual(await ok('PUT', `/api/investigations/${created.id}`, { ...read, name: 'Lateral movement (closed)' }), { result: 'success' });
    assert.equal((await ok('GET', '/api/investigations')).find((i: { id: number }) => i.id === created.id).name, 'Lateral movement (closed)');
    const tag = await ok('POST', '/api/tagged_event', { investigation_id: created.id, unique_id: shell, event_type: 'procstart' });
    assert.deepEqual(await ok('DELETE', `/api/investigations/${created.id}`), { result: 'success' });
    assert.equal((await inject('GET', `/api/investigations/${created.id}`)).statusCode, 404);
    assert.equal((await inject('DELETE', `/api/tagged_event/${tag.id}`)).statusCode, 404);
    assert.deepEqual(await ok('GET', `/api/tagged_events/${shell}`), []);
  });

  it('tags a process event, lists it by investigation and by process, and shows it in process search\'s tagged_pids', async () => {
    const { id } = await ok('POST', '/api/investigations', { name: 'Shell use' });
    const before = (await ok('GET', `/api/investigations/${id}`)).last_updated;
    const [segment] = await ok('GET', `/api/v1/process/${shell}/segment`).then((list) => list.process.segments);
    const unique = `${shell}-${segment.unique_id.slice(-12)}`;
    const tagged = await ok('POST', '/api/tagged_event', {
      investigation_id: id, unique_id: unique, event_type: 'netconn', event_id: 3,
      event_data: { domain: 'example.com', port: 443 }, notes: 'beacon',
    });
    assert.deepEqual({ ...tagged, date_tagged: '', start_date: '' }, {
      id: tagged.id, investigation_id: id, unique_id: shell, segment_id: parseInt(unique.slice(-12), 16), process_id: 4100, event_id: 3, event_type: 'netconn',
      event_data: { domain: 'example.com', port: 443 }, start_date: '', date_tagged: '', tagged_by_user_id: 'admin', notes: 'beacon',
    });
    assert.equal(Date.parse(tagged.start_date.replace(' ', 'T')), T0);
    assert.ok((await ok('GET', `/api/investigations/${id}`)).last_updated >= before);
    assert.deepEqual(await ok('GET', `/api/tagged_event/${id}`), [tagged]);
    assert.deepEqual(await ok('GET', `/api/tagged_events/${shell}`), [tagged]);
    assert.deepEqual(await ok('GET', `/api/tagged_events/${unique.toUpperCase()}`), [tagged]);
    assert.deepEqual(await ok('GET', '/api/tagged_events/4100'), [tagged], 'by pid, as the record\'s process_id');
    await ok('POST', '/api/tagged_event', { investigation_id: 1, unique_id: shell, event_type: 'procstart' });

    const search = await ok('GET', '/api/v1/process?q=process_name%3Acmd.exe&rows=10');
    const documents = search.results.filter((document: { id: string }) => document.id === shell);
    assert.ok(documents.length > 0);
    for (const document of documents) {
      assert.deepEqual(search.tagged_pids[document.unique_id], [{ name: 'Shell use', id }, { name: 'Default Investigation', id: 1 }]);
    }
    assert.equal(Object.keys(search.tagged_pids).length, documents.length);
  });

  it('changes and removes a tagged event by its own id', async () => {
    const tagged = await ok('POST', '/api/tagged_event', { investigation_id: 1, unique_id: shell, event_type: 'filemod', notes: 'first look' });
    const changed = await ok('PUT', `/api/tagged_event/${tagged.id}`, {
      ...tagged, start_date: '2020-01-01 00:00:00.000000+00:00', notes: 'dropper', event_data: { path: 'c:\\temp\\out.txt' },
    });
    assert.deepEqual({ ...changed, date_tagged: tagged.date_tagged }, { ...tagged, notes: 'dropper', event_data: { path: 'c:\\temp\\out.txt' } });
    assert.deepEqual(await ok('DELETE', `/api/tagged_event/${tagged.id}`), { result: 'success' });
    assert.ok(!(await ok('GET', '/api/tagged_event/1')).some((event: { id: number }) => event.id === tagged.id));
    assert.equal((await inject('PUT', `/api/tagged_event/${tagged.id}`, { notes: 'x' })).statusCode, 404);
  });

  it('tags a note that names no process, as the legacy bindings\' event_add does', async () => {
    const note = await ok('POST', '/api/tagged_event', {
      investigation_id: 1, event_data: { description: 'user reported a popup' }, start_date: '2026-11-19 08:30:00.000000+00:00',
    });
    assert.deepEqual([note.unique_id, note.process_id, note.segment_id], ['', null, 0]);
    assert.equal(Date.parse(note.start_date.replace(' ', 'T')), Date.parse('2026-11-19T08:30:00Z'));
    assert.ok((await ok('GET', '/api/tagged_event/1', undefined, viewer)).some((event: { id: number }) => event.id === note.id));
    const moved = await ok('PUT', `/api/tagged_event/${note.id}`, { ...note, start_date: '2026-11-19 09:00:00.000000+00:00' });
    assert.equal(Date.parse(moved.start_date.replace(' ', 'T')), Date.parse('2026-11-19T09:00:00Z'), 'a note\'s date is the client\'s');
    const undated = await ok('POST', '/api/tagged_event', { investigation_id: 1, event_data: { description: 'no date' } });
    assert.equal(undated.start_date, null);
    assert.deepEqual(await ok('PUT', `/api/tagged_event/${undated.id}`, { ...undated, notes: 'saved back as read' }), { ...undated, notes: 'saved back as read' });
  });

  it('shows tags only on processes the caller may view, and lets only their owner or a global admin change them', async () => {
    const secret = await ok('POST', '/api/tagged_event', { investigation_id: 1, unique_id: labProcess, event_type: 'procstart' });
    assert.ok(!(await ok('GET', '/api/tagged_event/1', undefined, viewer)).some((event: { id: number }) => event.id === secret.id));
    assert.deepEqual(await ok('GET', `/api/tagged_events/${labProcess}`, undefined, viewer), []);
    assert.deepEqual(await ok('GET', '/api/tagged_events/4200', undefined, viewer), []);
    assert.deepEqual((await ok('GET', '/api/tagged_events/4200')).map((event: { id: number }) => event.id), [secret.id]);
    assert.equal((await inject('DELETE', `/api/tagged_event/${secret.id}`, undefined, viewer)).statusCode, 404);
    const hidden = await inject('POST', '/api/tagged_event', { investigation_id: 1, unique_id: labProcess }, viewer);
    assert.equal(hidden.statusCode, 400);
    assert.match(hidden.json().message, /unique_id: no process/);

    const mine = await ok('POST', '/api/tagged_event', { investigation_id: 1, unique_id: shell, notes: 'viewer saw this' }, viewer);
    assert.equal(mine.tagged_by_user_id, 'inv-viewer');
    const adminTag = await ok('POST', '/api/tagged_event', { investigation_id: 1, unique_id: shell });
    assert.equal((await inject('PUT', `/api/tagged_event/${adminTag.id}`, { notes: 'mine now' }, viewer)).statusCode, 403);
    assert.equal((await ok('PUT', `/api/tagged_event/${mine.id}`, { notes: 'checked' }, viewer)).notes, 'checked');
    assert.deepEqual(await ok('DELETE', `/api/tagged_event/${mine.id}`, undefined, test.adminToken), { result: 'success' });

    const theirs = await ok('POST', '/api/investigations', { name: 'Viewer case' }, viewer);
    assert.equal((await ok('GET', `/api/investigations/${theirs.id}`, undefined, viewer)).created_by_user_id, 'inv-viewer');
    const ours = await ok('POST', '/api/investigations', { name: 'Admin case' });
    assert.equal((await inject('PUT', `/api/investigations/${ours.id}`, { name: 'taken over' }, viewer)).statusCode, 403);
    assert.equal((await inject('DELETE', `/api/investigations/${ours.id}`, undefined, viewer)).statusCode, 403);
    assert.equal((await inject('PUT', '/api/investigations/1', { name: 'Mine' }, viewer)).statusCode, 403);
    assert.deepEqual(await ok('DELETE', `/api/investigations/${theirs.id}`, undefined, viewer), { result: 'success' });
    assert.equal((await inject('DELETE', '/api/investigations/1')).statusCode, 403);
  });

  it('answers 404 for unknown ids, 400 for bad bodies and ids, 401 without a token', async () => {
    for (const [method, url] of [['GET', '/api/investigations/4242'], ['PUT', '/api/investigations/4242'], ['DELETE', '/api/investigations/4242'],
      ['GET', '/api/tagged_event/4242'], ['PUT', '/api/tagged_event/4242'], ['DELETE', '/api/tagged_event/4242']] as const) {
      assert.equal((await inject(method, url, method === 'PUT' ? { notes: 'x' } : undefined)).statusCode, 404, `${method} ${url}`);
    }
    const noName = await inject('POST', '/api/investigations', { notes: 'x' });
    assert.equal(noName.statusCode, 400);
    assert.match(noName.json().message, /name/);
    const noInvestigation = await inject('POST', '/api/tagged_event', { investigation_id: 4242, unique_id: shell });
    assert.equal(noInvestigation.statusCode, 400);
    assert.match(noInvestigation.json().message, /investigation_id/);
    assert.equal((await inject('POST', '/api/tagged_event', { unique_id: shell })).statusCode, 400);
    assert.equal((await inject('POST', '/api/tagged_event', { investigation_id: 1, unique_id: 'not-a-process' })).statusCode, 400);
    const noSegment = await inject('POST', '/api/tagged_event', { investigation_id: 1, unique_id: `${shell}-00000000002a` });
    assert.equal(noSegment.statusCode, 400);
    assert.match(noSegment.json().message, /segment_id: .* has no segment 42/);
    assert.equal((await inject('POST', '/api/tagged_event', { investigation_id: 1, start_date: 'yesterday' })).statusCode, 400);
    assert.equal((await inject('GET', '/api/tagged_events/not-a-process')).statusCode, 400);
    assert.equal((await inject('GET', '/api/investigations/abc')).statusCode, 400);
    for (const [method, url] of [['GET', '/api/investigations'], ['POST', '/api/investigations'], ['GET', '/api/investigations/1'],
      ['POST', '/api/tagged_event'], ['GET', '/api/tagged_event/1'], ['DELETE', '/api/tagged_event/1'], ['GET', `/api/tagged_events/${shell}`]] as const) {
      assert.equal((await test.app.inject({ method, url })).statusCode, 401, `${method} ${url}`);
    }
  });
});
