/**
 * `_bulk` bodies whose events a reader thread hands straight to the event writer (ADR 0035) are
 * answered and stored as bodies read and stored on the request thread: the real recordings, as
 * Winlogbeat configured for Sysmon ships them, through both, then compared through the API
 * (per-item answers, ingest counters, hosts, processes found and their events). A body sent twice
 * stores nothing twice on either, and with an ingress filter in force the filter still applies.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { as, startTestApp, testStore, type TestApp } from '../../../test/support/app.js';
import { searchProcesses } from '../../../test/support/search.js';
import { recordingEvents } from '../../../test/support/sysmon-fixtures.js';
import { toEcs } from '../../../test/support/sysmon-shapes.js';

const RECORDINGS = ['cmd_sam_copy_esentutl', 'empire_mimikatz_logonpasswords', 'psh_lsass_memory_dump_comsvcs', 'schtask_create'];
const SYSMON = 'Microsoft-Windows-Sysmon/Operational';
const STATUS_ONLY = 'filter_path=errors,items.*.error,items.*.status';

const SERVER_CLOCK_FIELDS = ['unique_id', 'last_update', 'last_server_update'];

function bulkBody(documents: readonly Record<string, unknown>[]): Buffer {
  return gzipSync(documents.map((document) => `{"create":{"_index":"logs-winlogbeat-8.15.0"}}\n${JSON.stringify(document)}\n`).join(''));
}

/** An app and its Winlogbeat, which sends bodies as bytes. */
async function shipper(test: TestApp) {
  const { key } = (await test.app.inject({ method: 'POST', url: '/api/v1/group/1/ingest_key', headers: as(test.adminToken), payload: {} })).json();
  return async (body: Buffer, query = STATUS_ONLY) => {
    const response = await test.app.inject({
      method: 'POST', url: `/ingest/elastic/_bulk?${query}`, payload: body,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };
}

/** What an analyst sees of the stored data; server-clock fields (segment ids and the ids holding them, update times) left out. */
async function stored(test: TestApp) {
  const headers = as(test.adminToken);
  const { events_accepted, events_rejected, ...stats } = (await test.app.inject({ url: '/api/v1/ingest/stats', headers })).json();
  const listed: Record<string, unknown>[] = (await test.app.inject({ url: '/api/v1/sensor', headers })).json();
  const sensors = listed.map((sensor) => [sensor.computer_name, sensor.os_type]).sort();
  // Hosts first seen in one body are registered side by side, so which gets which sensor id may
  // differ between the two apps: ids are compared by the host they name.
  const hostOf = new Map(listed.map((sensor) => [Number(sensor.id), String(sensor.computer_name)]));
  const byHost = <T>(value: T): T => JSON.parse(JSON.stringify(value)
    .replace(/"sensor_id":(\d+)/gu, (_, id: string) => `"sensor_id":"${hostOf.get(Number(id))}"`)
    .replace(/\b([0-9a-f]{8})-(?=[0-9a-f]{4}-)/gu, (prefix, id: string) => (hostOf.has(parseInt(id, 16)) ? `${hostOf.get(parseInt(id, 16))}-` : prefix))) as T;
  const found = await searchProcesses(test, { q: '', rows: 10_000 });
  const processes = [];
  for (const process of found.results) {
    const { id, segment_id, ...fields } = process as Record<string, unknown>;
    for (const clock of SERVER_CLOCK_FIELDS) delete fields[clock];
    const events = (await test.app.inject({ url: `/api/v1/process/${id}/${segment_id}/event`, headers })).json().process;
    processes.push(byHost({ fields, events: ['filemod_complete', 'regmod_complete', 'netconn_complete', 'modload_complete', 'crossproc_complete', 'childproc_complete'].map((type) => events[type]) }));
  }
  processes.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  return { stats: { events_accepted, events_rejected, ...stats }, sensors, total: found.total_results, processes };
}

describe('Sysmon bulk bodies handed to the event writer by the reader thread', () => {
  let handing: TestApp;
  let plain: TestApp;
  before(async () => {
    handing = await startTestApp({ eventUploadLimitBytes: 8 * 1024 * 1024 });
    plain = await startTestApp({ eventUploadLimitBytes: 8 * 1024 * 1024, sysmonReaderThreads: 0 });
  });
  after(async () => {
    await handing.close();
    await plain.close();
  });

  it('answer and store what the request thread answers and stores, and a body sent twice stores nothing twice', async () => {
    assert.equal(await handing.container.services.ingest.takesHandedOver(), testStore() === 'sqlite', 'the embedded store takes batches handed over');
    const [toHanding, toPlain] = [await shipper(handing), await shipper(plain)];
    for (const name of RECORDINGS) {
      const body = bulkBody(recordingEvents(name).filter((event) => event.Channel === SYSMON).map(toEcs));
      const answer = await toHanding(body);
      assert.deepEqual(answer, await toPlain(body), name);
      assert.ok(answer.items.filter((item: { create: { status: number } }) => item.create.status === 201).length > 100, name);
      assert.deepEqual(await toHanding(body), await toPlain(body), `${name}, sent again`);
    }
    const handed = await stored(handing);
    assert.ok(handed.total > 200, `${handed.total} processes`);
    assert.ok(handed.processes.filter(({ events }) => events.some((list) => list?.length > 0)).length > 100, 'events compared');
    assert.deepEqual(handed, await stored(plain));
  });

  it('answer in full, and refuse a run of bad events line by line, as the request thread does', async () => {
    const [toHanding, toPlain] = [await shipper(handing), await shipper(plain)];
    const events = recordingEvents('cmd_sam_copy_esentutl').filter((event) => event.Channel === SYSMON)
      .map((event, i) => toEcs({ ...event, Hostname: 'full-answer-host', ...(i >= 20 && i < 30 ? { UtcTime: '1970-01-01 00:00:00.000' } : {}) }));
    // A blank line within the bad run, and one within the stored events, shift the lines after them.
    const lines = events.map((document, i) => `{"create":{"_index":"logs-winlogbeat-8.15.0"}}\n${JSON.stringify(document)}\n${i === 24 || i === 60 ? '\n' : ''}`);
    const body = gzipSync(lines.join(''));
    const withoutServerIds = (answer: { took?: number; items: Record<string, { _id?: string }>[] }) => {
      delete answer.took;
      for (const item of answer.items) delete item.create!._id;
      return answer;
    };
    const [fromHanding, fromPlain] = [withoutServerIds(await toHanding(body, '')), withoutServerIds(await toPlain(body, ''))];
    assert.deepEqual(fromHanding, fromPlain);
    const refused = fromHanding.items.filter((item) => (item.create as { status: number }).status === 400).map((item) => (item.create as { error: { reason: string } }).error.reason);
    assert.deepEqual(refused.map((reason) => reason.split(':')[0]), [41, 43, 45, 47, 49, 52, 54, 56, 58, 60].map((line) => `line ${line}`));
  });

  it('leave the events to the request thread while an ingress filter is in force, which then applies', async () => {
    const headers = as(handing.adminToken);
    const created = await handing.app.inject({
      method: 'POST', url: '/api/v1/ingress_whitelist', headers, payload: [{ name: 'No rundll32', global: true, path_filters: ['**/rundll32.exe'], filter_all_events: true }],
    });
    assert.equal(created.statusCode, 200, created.body);
    assert.equal(await handing.container.services.ingest.takesHandedOver(), false);
    const filteredBefore = (await handing.app.inject({ url: '/api/v1/ingest/stats', headers })).json().events_filtered ?? 0;
    const documents = recordingEvents('psh_lsass_memory_dump_comsvcs').filter((event) => event.Channel === SYSMON).map((event) => toEcs({ ...event, Hostname: 'filtered-host' }));
    await (await shipper(handing))(bulkBody(documents));
    assert.ok((await handing.app.inject({ url: '/api/v1/ingest/stats', headers })).json().events_filtered > filteredBefore, 'the filter dropped events');
    assert.ok((await searchProcesses(handing, { q: 'hostname:filtered-host' })).total_results > 10, 'the host\'s other processes stored');
    assert.equal((await searchProcesses(handing, { q: 'hostname:filtered-host process_name:rundll32.exe' })).total_results, 0);
  });
});
