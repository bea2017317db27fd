/**
 * Alerts over HTTP (reference admin §3), raised by the detection sink on processes stored by the
 * real sensor protocol, searched and triaged the ways cbapi, SOAR and XSOAR do it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';
import { storedSegments } from '../../../test/support/processes.js';
import { processEvents, registerSensor, uploadEvents } from '../../../test/support/sensors.js';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

describe('alerts API', () => {
  let test: TestApp;
  let ids: string[];
  let watchlistId: number;
  before(async () => {
    test = await startTestApp();
    const admin = as(test.adminToken);
    const sensor = await registerSensor(test, { computer_name: 'ALERT-HOST' });
    const events = [1, 2, 3, 4, 5].flatMap((n) => processEvents(1000 + n, T0 + n * 1000));
    assert.equal((await uploadEvents(test, sensor, 1, events)).statusCode, 200);
    // The hits below are raised at chosen times. The matcher would raise them at its own (its pass
    // over existing data follows a new watchlist within seconds), taking each process's one alert.
    await test.container.detectionMatcher.close();
    watchlistId = (await test.app.inject({
      method: 'POST', url: '/api/v1/watchlist', headers: admin, payload: { name: 'Shells', search_query: 'q=process_name%3Acmd.exe' },
    })).json().id;
    await test.app.inject({ method: 'PUT', url: `/api/v1/watchlist/${watchlistId}/action_type/3`, headers: admin, payload: { enabled: true } });
    ids = [];
    for (const [i, segment] of (await storedSegments(test, sensor.id)).entries()) {
      const outcome = await test.container.services.detection.watchlistRan({ watchlistId, ranAtMs: T0 + 100_000 + i, segments: [segment.segmentRow] });
      ids.push(...outcome.alerts);
    }
    assert.equal(ids.length, 5);
  });
  after(() => test.close());

  const admin = () => as(test.adminToken);
  const get = async (url: string, token = test.adminToken) => {
    const response = await test.app.inject({ url, headers: as(token) });
    assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
    return response.json();
  };
  const post = (url: string, payload: unknown) => test.app.inject({ method: 'POST', url, headers: admin(), payload: payload as object });
  const statuses = async () => Object.fromEntries(
    (await get('/api/v2/alert?rows=100')).results.map((a: { unique_id: string; status: string }) => [a.unique_id, a.status]),
  );

  it('searches at v1 and v2 with the parameters cbapi sends, newest first by default', async () => {
    const found = await get('/api/v2/alert?cb.urlver=1&facet=false&q=&rows=500&start=0');
    assert.deepEqual(Object.keys(found).sort(), ['elapsed', 'facets', 'highlights', 'results', 'start', 'terms', 'total_results']);
    assert.equal(found.total_results, 5);
    assert.deepEqual(found.results.map((a: { unique_id: string }) => a.unique_id), [...ids].reverse());
    assert.match(found.results[0].created_time, ISO);
    const v1 = await get('/api/v1/alert?cb.urlver=1&facet=false&q=&rows=500&start=0');
    assert.deepEqual({ ...v1, elapsed: 0 }, { ...found, elapsed: 0 });
    const page = await get('/api/v2/alert?rows=2&start=4&sort=created_time%20desc');
    assert.deepEqual([page.total_results, page.start, page.results.map((a: { unique_id: string }) => a.unique_id)], [5, 4, [ids[0]]]);
  });

  it('fetches one alert with cb.fq.unique_id, as cbapi\'s Alert.refresh does', async () => {
    const one = await get(`/api/v2/alert?cb.fq.unique_id=${ids[2]}`);
    assert.equal(one.total_results, 1);
    assert.equal(one.results[0].unique_id, ids[2]);
    assert.equal((await get('/api/v2/alert?cb.fq.unique_id=00000000-0000-0000-0000-000000000000')).total_results, 0);
  });

  it('searches by query and filters, facets, and takes the legacy POST body with lists', async () => {
    assert.equal((await get(`/api/v2/alert?q=${encodeURIComponent(`watchlist_id:${watchlistId} hostname:alert-host`)}`)).total_results, 5);
    assert.equal((await get('/api/v2/alert?q=-status%3AResolved&cb.fq.status=Unresolved&cb.fq.status=%22In%20Progress%22')).total_results, 5);
    assert.equal((await get('/api/v2/alert?q=alert_severity%3A%5B50%20TO%20*%5D%20and%20created_time%3A%5B2021-01-01T00%3A00%3A00%20TO%20*%5D')).total_results, 5);
    const faceted = await get('/api/v2/alert?rows=0&facet=true&facet.field=status&facet.field=hostname');
    assert.deepEqual(faceted.facets, {
      status: [{ name: 'Unresolved', value: 5, percent: 100, ratio: 100 }],
      hostname: [{ name: 'alert-host', value: 5, percent: 100, ratio: 100 }],
    });
    assert.deepEqual(faceted.results, []);
    const body = await post('/api/v2/alert', { q: ['process_name:cmd.exe'], 'cb.urlver': ['1'], facet: ['true', 'true'], rows: 2, start: 0, sort: 'created_time asc' });
    assert.equal(body.statusCode, 200, body.body);
    assert.deepEqual([body.json().total_results, body.json().results.map((a: { unique_id: string }) => a.unique_id)], [5, ids.slice(0, 2)]);
    assert.ok('status' in body.json().facets, 'facet=true without fields gives the default facets');
  });

  it('answers 400 query_malformed_syntax for a query it cannot read', async () => {
    for (const url of ['/api/v2/alert?q=status%3A(open', '/api/v2/alert?q=cmdline%3Ax', '/api/v2/alert?q=status%3Aopen', '/api/v2/alert?sort=cmdline%20asc']) {
      const response = await test.app.inject({ url, headers: admin() });
      assert.equal(response.statusCode, 400, url);
      assert.equal(response.json().reason, 'query_malformed_syntax', url);
    }
    assert.equal((await test.app.inject({ url: '/api/v2/alert?rows=10001', headers: admin() })).statusCode, 400);
  });

  it('answers a query of a thousand terms, ANDed or ORed, within SQLite\'s expression depth', async () => {
    const hostnames = Array.from({ length: 1000 }, (_, i) => `hostname:host${i}`);
    const ored = await get(`/api/v2/alert?q=${encodeURIComponent([...hostnames, 'hostname:alert-host'].join(' OR '))}`);
    assert.equal(ored.total_results, 5);
    const anded = await get(`/api/v2/alert?q=${encodeURIComponent(hostnames.map((term) => `-${term}`).join(' AND '))}`);
    assert.equal(anded.total_results, 5);
  });

  it('changes one alert as cbapi\'s change_status and Alert.save do, answering the alert', async () => {
    const resolved = await post(`/api/v1/alert/${ids[0]}`, { status: 'Resolved', unique_id: ids[0] });
    assert.equal(resolved.statusCode, 200, resolved.body);
    assert.deepEqual([resolved.json().status, resolved.json().assigned_to], ['Resolved', 'admin']);
    assert.match(resolved.json().resolved_time, ISO);
    const saved = await post(`/api/v1/alert/${ids[0]}`, { ...(resolved.json() as object), status: 'unresolved', assigned_to: 'irteam' });
    assert.deepEqual([saved.json().status, saved.json().assigned_to, saved.json().resolved_time], ['Unresolved', 'irteam', undefined]);
    assert.equal((await post(`/api/v1/alert/${ids[0]}`, { status: 'Closed' })).statusCode, 400);
    assert.equal((await post('/api/v1/alert/no-such-alert', { status: 'Resolved' })).statusCode, 404);
  });

  it('changes many alerts by ids, as cbapi sends them in blocks', async () => {
    const assigned = await post('/api/v1/alerts', { alert_ids: ids.slice(1, 3), assigned_to: 'ann', requested_status: 'In Progress' });
    assert.deepEqual(assigned.json(), { result: 'success' });
    const now = await statuses();
    assert.deepEqual([now[ids[1]!], now[ids[2]!], now[ids[3]!]], ['In Progress', 'In Progress', 'Unresolved']);
    assert.equal((await get('/api/v2/alert?q=assigned_to%3Aann')).total_results, 2);
  });

  it('changes many alerts by query in one operation: the doc\'s form with rows, and SOAR\'s q= form', async () => {
    await post('/api/v1/alerts', { alert_ids: ids, requested_status: 'Unresolved', assigned_to: '' });
    const top = await post('/api/v1/alerts', {
      query: 'cb.urlver=1&cb.fq.status=unresolved&sort=created_time%20desc&rows=2', requested_status: 'Resolved',
    });
    assert.deepEqual(top.json(), { result: 'success' });
    const now = await statuses();
    assert.deepEqual(ids.map((id) => now[id]), ['Unresolved', 'Unresolved', 'Unresolved', 'Resolved', 'Resolved']);
    await post('/api/v1/alerts', { query: `q=${encodeURIComponent('status:unresolved')}`, requested_status: 'False Positive' });
    assert.equal((await get('/api/v2/alert?q=status%3A%22false%20positive%22')).total_results, 3);
    const bad = await post('/api/v1/alerts', { query: 'q=status%3A(', requested_status: 'Resolved' });
    assert.equal(bad.json().reason, 'query_malformed_syntax');
    assert.equal((await post('/api/v1/alerts', { requested_status: 'Resolved' })).statusCode, 400, 'names no alerts');
    assert.equal((await post('/api/v1/alerts', { alert_ids: ids })).statusCode, 400, 'changes nothing');
  });

  it('shows a user only the alerts of groups their teams may view, and lets only global admins change them', async () => {
    const outsider = await createUser(test, { username: 'outsider' });
    assert.equal((await get('/api/v2/alert', outsider)).total_results, 0);
    const team = (await test.app.inject({
      method: 'POST', url: '/api/team', headers: admin(), payload: { name: 'Analysts', group_access: [{ group_id: 1, access_category: 'Viewer' }] },
    })).json();
    const analyst = await createUser(test, { username: 'analyst', teams: [team.id] });
    assert.equal((await get('/api/v2/alert', analyst)).total_results, 5);
    const refused = await test.app.inject({ method: 'POST', url: '/api/v1/alerts', headers: as(analyst), payload: { alert_ids: ids, requested_status: 'Resolved' } });
    assert.equal(refused.statusCode, 403);
    const one = await test.app.inject({ method: 'POST', url: `/api/v1/alert/${ids[0]}`, headers: as(analyst), payload: { status: 'Resolved' } });
    assert.equal(one.statusCode, 403);
  });
});
