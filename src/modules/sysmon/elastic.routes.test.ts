/**
 * The Elasticsearch-compatible endpoint as Winlogbeat 8 speaks to it: the start-up checks with
 * Beats' api_key header, then gzip `_bulk` bodies of `create` actions for a data stream, carrying
 * a real recording as Winlogbeat documents; answered item by item as Elasticsearch does.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { as, startTestApp, type TestApp } from '../../../test/support/app.js';
import { searchProcesses } from '../../../test/support/search.js';
import { recordingEvents } from '../../../test/support/sysmon-fixtures.js';
import { toEcs } from '../../../test/support/sysmon-shapes.js';

const BASE = '/ingest/elastic';
const DATA_STREAM = 'logs-winlogbeat-8.15.0';

describe('Elasticsearch-compatible Sysmon ingest', () => {
  let test: TestApp;
  let headers: Record<string, string>;
  before(async () => {
    test = await startTestApp({ eventUploadLimitBytes: 8 * 1024 * 1024 });
    const { id, key } = (await test.app.inject({ method: 'POST', url: '/api/v1/group/1/ingest_key', headers: as(test.adminToken), payload: { name: 'winlogbeat' } })).json();
    // Winlogbeat's output.elasticsearch.api_key "id:key" goes out base64-encoded.
    headers = { authorization: `ApiKey ${Buffer.from(`${id}:${key}`).toString('base64')}` };
  });
  after(async () => test.close());

  const bulk = (lines: unknown[], extra: Record<string, string> = {}, url = `${BASE}/_bulk`) => test.app.inject({
    method: 'POST', url, headers: { ...headers, 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip', ...extra },
    payload: gzipSync(lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n'),
  });

  it('answers the start-up checks as Elasticsearch 8 does', async () => {
    const info = await test.app.inject({ url: BASE, headers });
    assert.equal(info.statusCode, 200);
    assert.equal(info.headers['x-elastic-product'], 'Elasticsearch', 'the 8.x clients refuse a server without it');
    assert.match(info.json().version.number, /^8\./);
    assert.equal((await test.app.inject({ method: 'HEAD', url: BASE, headers })).statusCode, 200);
    assert.equal((await test.app.inject({ url: `${BASE}/_license`, headers })).json().license.status, 'active');
    assert.equal((await test.app.inject({ url: `${BASE}/_cluster/health`, headers })).json().status, 'green');
    assert.equal((await test.app.inject({ url: `${BASE}/_index_template/winlogbeat-8.15.0`, headers })).statusCode, 200);
    const put = await test.app.inject({ method: 'PUT', url: `${BASE}/_index_template/winlogbeat-8.15.0`, headers: { ...headers, 'content-type': 'application/json' }, payload: '{"index_patterns":["x"]}' });
    assert.deepEqual(put.json(), { acknowledged: true });
    assert.equal((await test.app.inject({ url: BASE, headers: as(test.adminToken) })).statusCode, 401, 'an API token is no ingest key');
  });

  it('stores the Mimikatz recording from three hosts, and an analyst finds the LSASS read', async () => {
    const documents = recordingEvents('empire_mimikatz_logonpasswords').map(toEcs);
    const response = await bulk(documents.flatMap((doc) => [{ create: { _index: DATA_STREAM } }, doc]));
    assert.equal(response.statusCode, 200, response.body);
    const reply = response.json();
    assert.equal(reply.items.length, documents.length, 'one item per action');
    const statuses = new Map<number, number>();
    for (const item of reply.items) statuses.set(item.create.status, (statuses.get(item.create.status) ?? 0) + 1);
    assert.ok(statuses.get(201)! > 500, `Sysmon events stored: ${JSON.stringify([...statuses])} ${JSON.stringify(reply.items.find((i: { create: { status: number } }) => i.create.status === 400))}`);
    assert.ok(statuses.get(200)! > 0, 'other channels acknowledged, not stored');
    assert.equal(statuses.get(400), undefined, 'nothing in a real recording is an error');
    assert.equal(reply.items[0].create._index, DATA_STREAM);

    const hosts = await test.app.inject({ url: '/api/v1/sensor', headers: as(test.adminToken) });
    const names = (hosts.json() as { computer_name: string }[]).map((s) => s.computer_name).sort();
    assert.ok(names.includes('WORKSTATION5') && names.includes('WORKSTATION6'), names.join());

    const lsassReaders = await searchProcesses(test, { q: 'hostname:workstation5 crossproc_name:lsass.exe' });
    assert.ok(lsassReaders.results.some((r) => r.process_pid === 1648), 'the Empire PowerShell process that opened lsass');
    const whoami = await searchProcesses(test, { q: 'process_name:whoami.exe cmdline:/user' });
    assert.equal(whoami.total_results, 1);
    assert.equal(whoami.results[0]!.hostname, 'workstation5');
  });

  it('refuses bad items one by one as Elasticsearch does, keeping the good ones', async () => {
    const good = toEcs({
      EventID: 1, Channel: 'Microsoft-Windows-Sysmon/Operational', SourceName: 'Microsoft-Windows-Sysmon', Hostname: 'BULK-HOST',
      UtcTime: '2024-05-01 10:00:00.250', ProcessGuid: '{11111111-0000-6632-0000-000000000001}', ProcessId: '77', Image: 'C:\\bulk.exe',
    });
    const ancient = { ...good, winlog: { ...(good.winlog as object), event_data: { ...((good.winlog as { event_data: object }).event_data), UtcTime: '1970-01-01 00:00:00.000' } } };
    const response = await bulk([
      { index: { _index: 'sysmon' } }, good,
      'not an action',
      { create: {} }, '{"broken": ',
      { delete: { _id: 'x' } },
      { index: {} }, ancient,
    ], {}, `${BASE}/sysmon-events/_bulk`);
    assert.equal(response.statusCode, 200, response.body);
    const reply = response.json();
    assert.equal(reply.errors, true);
    const outcomes = reply.items.map((item: Record<string, { status: number; error?: { type: string } }>) => {
      const [action, result] = Object.entries(item)[0]!;
      return [action, result.status, result.error?.type ?? ''];
    });
    assert.deepEqual(outcomes, [
      ['index', 201, ''],
      ['index', 400, 'malformed_line'],
      ['create', 400, 'malformed_line'],
      ['delete', 400, 'malformed_line'],
      ['index', 400, 'time_out_of_range'],
    ]);
    assert.equal(reply.items[4].index._index, 'sysmon-events', 'the index the URL named');
    assert.equal((await searchProcesses(test, { q: 'hostname:bulk-host' })).total_results, 1);
  });

  it('answers Beats\' filter_path with each item\'s status and error alone, as Elasticsearch filters its reply', async () => {
    const stored = toEcs({
      EventID: 1, Channel: 'Microsoft-Windows-Sysmon/Operational', SourceName: 'Microsoft-Windows-Sysmon', Hostname: 'FILTER-HOST',
      UtcTime: '2024-05-01 10:00:00.250', ProcessGuid: '{11111111-0000-6632-0000-000000000001}', ProcessId: '79', Image: 'C:\\filter.exe',
    });
    const otherChannel = toEcs({ EventID: 4624, Channel: 'Security', SourceName: 'Microsoft-Windows-Security-Auditing', Hostname: 'FILTER-HOST' });
    const lines = [{ create: {} }, stored, { create: {} }, otherChannel, { create: {} }, '{"broken": '];
    // libbeat's elasticsearch client sends this filter with every bulk request.
    const filtered = await bulk(lines, {}, `${BASE}/_bulk?filter_path=errors,items.*.error,items.*.status`);
    assert.equal(filtered.statusCode, 200, filtered.body);
    assert.deepEqual(filtered.json(), {
      errors: true,
      items: [
        { create: { status: 201 } },
        { create: { status: 200 } },
        { create: { status: 400, error: { type: 'malformed_line', reason: 'line 5: the document line is not a JSON object' } } },
      ],
    });
    assert.equal((await searchProcesses(test, { q: 'hostname:filter-host' })).total_results, 1);

    const unfiltered = (await bulk(lines, {}, `${BASE}/_bulk?filter_path=took,items.*._id`)).json();
    assert.equal(typeof unfiltered.took, 'number', 'a filter Vigil does not apply gets the whole reply');
    assert.equal(unfiltered.items[0].create.result, 'noop', 'the body was stored before');
  });

  it('stores a bulk body sent again after a lost answer once, answering its items as done', async () => {
    const good = toEcs({
      EventID: 1, Channel: 'Microsoft-Windows-Sysmon/Operational', SourceName: 'Microsoft-Windows-Sysmon', Hostname: 'RETRY-HOST',
      UtcTime: '2024-05-01 10:00:00.250', ProcessGuid: '{11111111-0000-6632-0000-000000000001}', ProcessId: '78', Image: 'C:\\retry.exe',
    });
    const body = [{ create: {} }, good];
    const first = (await bulk(body)).json();
    assert.equal(first.items[0].create.status, 201);
    const again = (await bulk(body)).json();
    assert.equal(again.errors, false);
    assert.deepEqual([again.items[0].create.status, again.items[0].create.result], [200, 'noop']);
    const found = await searchProcesses(test, { q: 'hostname:retry-host' });
    assert.equal(found.total_results, 1);
    const counters = (await test.app.inject({ url: `/api/v1/sensor/${found.results[0]!.sensor_id}/ingest`, headers: as(test.adminToken) })).json();
    assert.equal(counters.events_accepted, 1, 'stored once');
  });

  it('answers a body over the limit 413, as Elasticsearch does, so Beats split the batch', async () => {
    const response = await test.app.inject({
      method: 'POST', url: `${BASE}/_bulk`, headers: { ...headers, 'content-type': 'application/x-ndjson' }, payload: Buffer.alloc(9 * 1024 * 1024, ' '),
    });
    assert.equal(response.statusCode, 413);
  });
});
