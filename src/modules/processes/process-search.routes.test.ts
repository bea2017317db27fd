/** GET/POST /api/v1/process over HTTP (reference core §3): envelope, documents, paging, grouping, facets, errors, access. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, testStore, type TestApp } from '../../../test/support/app.js';
import { buildFleet, names, processStart, queryString, searchProcesses, T0, type Fleet, type Params } from '../../../test/support/search.js';
import { registerSensor, uploadEvents } from '../../../test/support/sensors.js';
import { parseProcessId } from '../../domain/process-id.js';

const SOLR_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/u;

describe('process search API', () => {
  let test: TestApp;
  let fleet: Fleet;
  before(async () => {
    // Small segments, so that processes have several and paging has something to page through.
    test = await startTestApp({ segmentMaxEvents: 2 });
    fleet = await buildFleet(test);
  });
  after(() => test.close());

  const request = (url: string, token = test.adminToken) => test.app.inject({ url, headers: as(token) });

  it('answers in Carbon Black\'s envelope, one document per segment', async () => {
    const reply = await searchProcesses(test, { q: 'process_name:cmd.exe', 'cb.urlver': 1, rows: 100 });
    assert.deepEqual(Object.keys(reply).sort(), [
      'all_segments', 'comprehensive_search', 'elapsed', 'facets', 'filtered', 'highlights', 'incomplete_results', 'results',
      'start', 'tagged_pids', 'terms', 'total_results',
    ]);
    assert.deepEqual(reply.terms, ['process_name:cmd.exe']);
    // cmd.exe sent 8 events: four segments of two.
    assert.equal(reply.total_results, 4);
    assert.equal(new Set(reply.results.map((r) => r.unique_id)).size, 4);
    const doc = reply.results[0]!;
    assert.deepEqual(parseProcessId(doc.id as string), { sensorId: fleet.windows.id, pid: 4242, startMs: T0 });
    assert.equal(doc.unique_id, `${doc.id}-${(doc.segment_id as number).toString(16).padStart(12, '0')}`);
    assert.deepEqual(parseProcessId(doc.parent_id as string), { sensorId: fleet.windows.id, pid: 600, startMs: T0 - 60_000 });
    assert.equal(doc.parent_unique_id, `${doc.parent_id}-000000000001`);
    assert.equal(doc.parent_name, 'explorer.exe');
    assert.equal(doc.hostname, 'win-acct-01');
    assert.equal(doc.group, 'default group');
    assert.equal(doc.path, 'c:\\windows\\system32\\cmd.exe');
    assert.equal(doc.cmdline, 'cmd.exe /c whoami');
    assert.equal(doc.username, 'CORP\\alice');
    assert.equal(doc.terminated, true);
    assert.equal(doc.comms_ip, (10 << 24) + (1 << 16) + (2 << 8) + 3);
    for (const field of ['start', 'last_update', 'last_server_update']) assert.match(doc[field] as string, SOLR_TIME, field);
    assert.equal(doc.start, '2026-11-20T10:00:00Z');
    const counted = ['filemod_count', 'regmod_count', 'netconn_count', 'modload_count', 'childproc_count', 'crossproc_count'];
    for (const field of counted) assert.equal(reply.results.reduce((sum, r) => sum + (r[field] as number), 0), 1, field);
  });

  it('answers the same at v2, and to a POST whose body holds lists as the legacy client sends them', async () => {
    const get = await searchProcesses(test, { q: 'hostname:web-01', rows: 100 });
    const v2 = await searchProcesses(test, { q: 'hostname:web-01', rows: 100 }, test.adminToken, '/api/v2/process');
    const post = await test.app.inject({
      method: 'POST', url: '/api/v1/process', headers: as(test.adminToken),
      payload: { q: ['hostname:web-01'], rows: 100, start: 0, sort: 'last_update desc', facet: ['true', 'true'], 'cb.urlver': ['1'] },
    });
    assert.equal(post.statusCode, 200, post.body);
    const ids = (reply: { results: Record<string, unknown>[] }) => reply.results.map((r) => r.unique_id);
    assert.deepEqual(ids(v2), ids(get));
    assert.deepEqual(ids(post.json()), ids(get));
    assert.ok(Object.keys(post.json().facets).includes('process_name'), 'facet=true without fields gives the default facets');
  });

  it('counts everything for an empty q, answers only the count for rows=0, and pages through every match once', async () => {
    const all = await searchProcesses(test, { q: '', rows: 10_000 });
    assert.equal(all.results.length, all.total_results);
    const counted = await searchProcesses(test, { rows: 0 });
    assert.equal(counted.total_results, all.total_results);
    assert.deepEqual(counted.results, []);
    for (const sort of ['last_update desc', 'start asc', 'process_name asc', 'netconn_count desc', 'segment_id asc']) {
      const seen: unknown[] = [];
      for (let start = 0; start < all.total_results; start += 3) {
        const page = await searchProcesses(test, { q: '', rows: 3, start, sort });
        assert.equal(page.total_results, all.total_results, sort);
        assert.equal(page.start, start);
        seen.push(...page.results.map((r) => r.unique_id));
      }
      assert.equal(seen.length, all.total_results, sort);
      assert.equal(new Set(seen).size, all.total_results, `${sort}: no document twice`);
    }
  });

  it('sorts by the field asked, in either direction', async () => {
    const starts = (await searchProcesses(test, { sort: 'start asc', rows: 100 })).results.map((r) => Date.parse(r.start as string));
    assert.deepEqual(starts, [...starts].sort((a, b) => a - b));
    const updates = (await searchProcesses(test, { rows: 100 })).results.map((r) => Date.parse(r.last_update as string));
    assert.deepEqual(updates, [...updates].sort((a, b) => b - a), 'last_update desc by default');
  });

  it('returns one document per process with cb.group=id, counting processes', async () => {
    const grouped = await searchProcesses(test, { 'cb.group': 'id', rows: 100 });
    assert.equal(grouped.total_results, 5);
    assert.equal(new Set(grouped.results.map((r) => r.id)).size, 5);
    const firstPage = await searchProcesses(test, { 'cb.group': 'id', rows: 2, sort: 'start asc' });
    const secondPage = await searchProcesses(test, { 'cb.group': 'id', rows: 3, start: 2, sort: 'start asc' });
    assert.deepEqual([...names(firstPage.results), ...names(secondPage.results)], ['nginx', 'explorer.exe', 'cmd.exe', 'powershell.exe', 'bash']);
  });

  it('restricts to segments updated in the cb.min/max_last_update window (sensor clock)', async () => {
    const reply = await searchProcesses(test, {
      'cb.group': 'id', rows: 100, 'cb.min_last_update': '2026-11-20T10:00:00Z', 'cb.max_last_update': '2026-11-20T10:00:01.500Z',
    });
    assert.deepEqual(names(reply.results).sort(), ['cmd.exe', 'powershell.exe']);
    const server = await searchProcesses(test, { rows: 0, 'cb.min_last_server_update': new Date(Date.now() + 60_000).toISOString() });
    assert.equal(server.total_results, 0, 'nothing was written in the future (server clock)');
  });

  it('facets by field with name, value, percent and ratio as shares of all matches', async () => {
    const reply = await searchProcesses(test, { q: 'hostname:win-acct-01', rows: 0, facet: 'true', 'facet.field': ['process_name', 'hostname', 'group'] });
    const total = reply.total_results;
    const byName = Object.fromEntries(reply.facets.process_name!.map((entry) => [entry.name, entry]));
    assert.deepEqual(Object.keys(byName).sort(), ['cmd.exe', 'explorer.exe', 'powershell.exe']);
    assert.equal(byName['cmd.exe']!.value, 4);
    assert.equal(reply.facets.process_name!.reduce((sum, e) => sum + e.value, 0), total);
    assert.equal(byName['cmd.exe']!.percent, Math.round((4 / total) * 100));
    assert.equal(byName['cmd.exe']!.ratio, Math.round((4 / total) * 1000) / 10);
    assert.deepEqual(reply.facets.hostname, [{ name: 'win-acct-01', value: total, percent: 100, ratio: 100 }]);
    assert.deepEqual(reply.facets.group!.map((e) => e.name), ['default group']);
  });

  it('gives the time facets clients draw: start per day, hour of day, day of week', async () => {
    const reply = await searchProcesses(test, { 'cb.group': 'id', rows: 0, facet: 'true', 'facet.field': ['start', 'hour_of_day', 'day_of_week'] });
    // 2026-11-20 is a Friday (Monday is 0); the test's processes started at 09:00 and 09:59 to 10:00.
    assert.deepEqual(reply.facets.day_of_week!.map((e) => [e.name, e.value]), [['4', 5]]);
    assert.deepEqual(reply.facets.hour_of_day!.map((e) => [e.name, e.value]), [['9', 2], ['10', 3]]);
    assert.deepEqual(reply.facets.start!.map((e) => [e.name, e.value]), [['2026-11-20T00:00:00Z', 5]]);
  });

  it('refuses what it cannot answer with a 400 Carbon Black clients understand', async () => {
    const syntax = await request('/api/v1/process?q=process_name%3A(cmd.exe');
    assert.equal(syntax.statusCode, 400);
    assert.equal(syntax.json().reason, 'query_malformed_syntax');
    assert.match(syntax.json().message, /position/u);
    // Beside the message, where the console can point at it; cbapi reads reason alone.
    assert.deepEqual({ ...(syntax.json() as object), message: undefined },
      { reason: 'query_malformed_syntax', message: undefined, position: 13, parameter: 'q' });
    assert.equal((await request('/api/v1/process?q=disig_issuer%3Ax')).json().reason, 'query_malformed_syntax');
    const bad: Params[] = [{ sort: 'bogus desc' }, { sort: 'start sideways' }, { rows: 10_001 }, { rows: -1 }, { start: 'x' },
      { facet: 'true', 'facet.field': 'nope' }, { 'cb.group': 'sensor_id' }, { 'cb.min_last_update': 'yesterday' }];
    for (const params of bad) {
      const response = await request(`/api/v1/process?${queryString(params)}`);
      assert.equal(response.statusCode, 400, JSON.stringify(params));
      assert.equal(response.json().reason, 'invalid_request', JSON.stringify(params));
    }
  });

  it('shows a user only the processes of groups their teams may view', async () => {
    const team = await test.app.inject({
      method: 'POST', url: '/api/team', headers: as(test.adminToken),
      payload: { name: 'server-watchers', group_access: [{ group_id: fleet.serversGroup, access_category: 'Viewer' }] },
    });
    assert.equal(team.statusCode, 200, team.body);
    const viewer = await createUser(test, { username: 'server-viewer', teams: [team.json().id] });
    const outsider = await createUser(test, { username: 'outsider' });
    const seen = await searchProcesses(test, { 'cb.group': 'id', rows: 100, facet: 'true', 'facet.field': 'hostname' }, viewer);
    assert.deepEqual(names(seen.results).sort(), ['bash', 'nginx']);
    assert.deepEqual(seen.facets.hostname!.map((e) => e.name), ['web-01']);
    assert.equal((await searchProcesses(test, { rows: 100 }, outsider)).total_results, 0);
    assert.equal((await searchProcesses(test, { q: 'process_name:cmd.exe', rows: 0 }, viewer)).total_results, 0);
  });
});

describe('process search past the time limit', () => {
  let test: TestApp;
  before(async () => {
    // A limit no search keeps: matching a wildcard in 3,000 command lines alone takes longer than 1 ms.
    test = await startTestApp({ searchTimeLimitMs: 1, ...(testStore() === 'sqlite' && { searchWorkers: 1 }) });
    const sensor = await registerSensor(test);
    const starts = Array.from({ length: 3_000 }, (_, i) => processStart(10_000 + i, T0 + i, {
      path: `C:\\Tools\\tool-${i}.exe`, cmdline: `tool-${i}.exe --update --verbose`, username: 'CORP\\alice',
    }));
    assert.equal((await uploadEvents(test, sensor, 1, starts)).statusCode, 200);
  });
  after(() => test.close());

  it('stops the search and answers 504 with a JSON reason', async () => {
    const response = await test.app.inject({ url: `/api/v1/process?${queryString({ q: 'cmdline:*upd*', rows: 10 })}`, headers: as(test.adminToken) });
    assert.equal(response.statusCode, 504, response.body);
    assert.equal(response.json().reason, 'query_timeout');
    assert.match(response.json().message, /limit of 0.001 s/u);
  });
});

