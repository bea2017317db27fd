/**
 * Storage partitions through the API (reference admin §5) on events uploaded through the sensor
 * protocol: rollover puts new events in a new hot partition, an unmounted partition is left out
 * of searches, counts, facets and process reads until mounted again, and a deleted one is gone
 * with its rows.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { as, createUser, startTestApp, testStore, type TestApp } from '../../../test/support/app.js';
import { backdatePartitions } from '../../../test/support/partitions.js';
import { searchProcesses } from '../../../test/support/search.js';
import { processEvents, registerSensor, uploadEvents, type TestSensor } from '../../../test/support/sensors.js';
import { SQLITE_FILE } from '../../db/open.js';
import { processId } from '../../domain/process-id.js';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const BASE = '/api/v1/storage/events';

describe('storage partitions API', () => {
  let test: TestApp;
  let sensor: TestSensor;
  let warm: string;
  const id = (pid: number) => processId({ sensorId: sensor.id, pid, startMs: T0 });
  const post = (url: string, token = test.adminToken) =>
    test.app.inject({ method: 'POST', url, headers: { ...as(token), 'content-type': 'application/json' }, payload: 'null' });
  const partitions = async () => {
    const response = await test.app.inject({ url: `${BASE}/partition`, headers: as(test.adminToken) });
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as Record<string, { status: string; name: string; info: Record<string, unknown> }>;
  };
  const total = async (q: string, extra: Record<string, string> = {}) => (await searchProcesses(test, { q, rows: 0, ...extra })).total_results;
  const segmentsOf = async (pid: number) => {
    const response = await test.app.inject({ url: `/api/v1/process/${id(pid)}/segment`, headers: as(test.adminToken) });
    return response.statusCode === 200 ? (response.json().process.segments as unknown[]).length : response.statusCode;
  };
  const upload = async (sequence: number, events: unknown[]) => assert.equal((await uploadEvents(test, sensor, sequence, events)).statusCode, 200);

  before(async () => {
    // Segments of four events: process 100 and 200 get two each; 300 (still running) two, then one after the rollover.
    test = await startTestApp({ segmentMaxEvents: 4 });
    sensor = await registerSensor(test);
    await upload(1, [...processEvents(100, T0), ...processEvents(300, T0).slice(0, -1)]);
    assert.equal((await post(`${BASE}/new_partition`)).statusCode, 200);
    warm = Object.keys(await partitions()).find((name) => name !== 'writer')!;
    await upload(2, [
      ...processEvents(200, T0),
      { type: 'netconn', ts: T0 + 20, pid: 300, process_start: T0, direction: 'outbound', proto: 6, remote_ip: '10.9.9.9', remote_port: 80, domain: 'late.example.org' },
    ]);
  });
  after(() => test.close());

  it('lists the hot partition and the warm one it rolled over into, keyed by name', async () => {
    const list = await partitions();
    assert.deepEqual(Object.keys(list).sort(), [warm, 'writer'].sort());
    assert.match(warm, /^cbevents_\d{4}_\d{2}_\d{2}_\d{4}$/u);
    assert.equal(list.writer!.status, 'hot');
    assert.equal(list.writer!.info.endDate, null);
    assert.equal(list.writer!.info.numDocs, 3);
    assert.equal(list[warm]!.status, 'warm');
    assert.equal(list[warm]!.info.numDocs, 4);
    assert.match(String(list[warm]!.info.endDate), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/u);
    assert.ok((list[warm]!.info.sizeInBytes as number) > 0);
    assert.equal(list[warm]!.info.isLegacy, false);
  });

  it('closes open segments at rollover: a running process continues in a new segment of the hot partition', async () => {
    assert.equal(await segmentsOf(300), 3);
    assert.equal(await total('domain:late.example.org'), 1);
  });

  it('leaves an unmounted partition out of searches, counts, facets and process reads, and brings it back when mounted', async () => {
    const before = { all: await total(''), cmd: await total('process_name:cmd.exe'), host: await total('hostname:win-test-01'), domain: await total('domain:example.com') };
    assert.deepEqual(before, { all: 7, cmd: 7, host: 7, domain: 3 });
    assert.equal((await post(`${BASE}/${warm}/unmount`)).statusCode, 200);
    assert.equal((await partitions())[warm]!.status, 'cold');
    assert.equal(await total(''), 3);
    assert.equal(await total('process_name:cmd.exe'), 3);
    assert.equal(await total('process_name:cmd.exe', { 'cb.group': 'id' }), 2);
    assert.equal(await total('hostname:win-test-01'), 3);
    assert.equal(await total('domain:example.com'), 1);
    assert.equal(await total('netconn_count:[1 TO *]'), 2);
    const facets = (await searchProcesses(test, { q: '', rows: 10, facet: 'true', 'facet.field': 'process_name' })).facets;
    assert.deepEqual(facets.process_name!.map((f) => [f.name, f.value]), [['cmd.exe', 3]]);
    assert.equal(await segmentsOf(100), 404);
    assert.equal(await segmentsOf(300), 1);
    const detail = await test.app.inject({ url: `/api/v1/process/${id(100)}/0`, headers: as(test.adminToken) });
    assert.equal(detail.statusCode, 404);

    assert.equal((await post(`${BASE}/${warm}/unmount`)).statusCode, 200, 'unmounting an unmounted partition changes nothing');
    assert.equal((await post(`${BASE}/${warm}/mount`)).statusCode, 200);
    const list = await partitions();
    assert.equal(list[warm]!.status, 'warm');
    assert.equal(list[warm]!.info.userMounted, true);
    assert.deepEqual({ all: await total(''), cmd: await total('process_name:cmd.exe'), host: await total('hostname:win-test-01'), domain: await total('domain:example.com') }, before);
    assert.equal((await searchProcesses(test, { q: '', rows: 0, facet: 'true', 'facet.field': 'process_name' })).facets.process_name![0]!.value, 7);
    assert.equal(await segmentsOf(100), 2);
  });

  it('refuses to unmount or delete the hot partition, and answers 404 for an unknown name', async () => {
    const unmountHot = await post(`${BASE}/writer/unmount`);
    assert.equal(unmountHot.statusCode, 400);
    assert.match(unmountHot.json().reason, /invalid_request/u);
    assert.equal((await test.app.inject({ method: 'DELETE', url: `${BASE}/writer`, headers: as(test.adminToken) })).statusCode, 400);
    assert.equal((await post(`${BASE}/cbevents_1999_01_01_0000/mount`)).statusCode, 404);
    assert.equal((await test.app.inject({ method: 'DELETE', url: `${BASE}/nope`, headers: as(test.adminToken) })).statusCode, 404);
  });

  it('is for global administrators only', async () => {
    const token = await createUser(test, { username: 'analyst' });
    assert.equal((await test.app.inject({ url: `${BASE}/partition`, headers: as(token) })).statusCode, 403);
    assert.equal((await post(`${BASE}/new_partition`, token)).statusCode, 403);
    assert.equal((await post(`${BASE}/${warm}/unmount`, token)).statusCode, 403);
    assert.equal((await test.app.inject({ method: 'DELETE', url: `${BASE}/${warm}`, headers: as(token) })).statusCode, 403);
    assert.equal((await test.app.inject({ url: `${BASE}/forecast`, headers: as(token) })).statusCode, 403);
  });

  it('deletes a partition with its events, postings and the processes left without segments', {
    skip: testStore() === 'postgres' && "reads SQLite's own tables and chunk files (partitions.postgres.test.ts covers PostgreSQL's purge)",
  }, async () => {
    const response = await test.app.inject({ method: 'DELETE', url: `${BASE}/${warm}`, headers: as(test.adminToken) });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(Object.keys(await partitions()), ['writer']);
    await test.container.storage.purgeSoon();
    assert.equal(await total(''), 3);
    assert.equal(await total('domain:example.com'), 1);
    assert.equal(await segmentsOf(100), 404);
    assert.equal(await segmentsOf(300), 1);
    const db = new Database(join(test.config.dataDir, SQLITE_FILE), { readonly: true });
    try {
      const count = (sql: string) => db.prepare(sql).pluck().get();
      assert.deepEqual(db.prepare('SELECT pid FROM processes ORDER BY pid').pluck().all(), [200, 300]);
      assert.equal(count('SELECT count(*) FROM segments'), 3);
      assert.equal(count('SELECT count(*) FROM segment_chunks WHERE segment_row NOT IN (SELECT id FROM segments)'), 0);
      assert.equal(count('SELECT count(*) FROM event_postings WHERE segment_row NOT IN (SELECT id FROM segments)'), 0);
      assert.equal(count('SELECT count(*) FROM process_postings WHERE process_row NOT IN (SELECT id FROM processes)'), 0);
      assert.ok((count('SELECT count(*) FROM process_postings') as number) > 0, 'the remaining processes keep their command-line words');
      assert.equal(count('SELECT sum(segments) FROM process_segment_counts'), 3);
      assert.equal(count('SELECT sum(segments) FROM host_segment_counts'), 3);
      assert.deepEqual(db.prepare('SELECT term_id, segments FROM term_segment_counts ORDER BY 1').raw().all(),
        db.prepare('SELECT term_id, count(*) FROM event_postings GROUP BY 1 ORDER BY 1').raw().all(), 'each term counts the postings left');
      const hot = count("SELECT id FROM event_partitions WHERE state = 'hot'");
      assert.deepEqual(readdirSync(join(test.config.dataDir, 'events')), [`partition-${hot}.chunks`], 'the deleted partition\'s chunk file is gone');
    } finally {
      db.close();
    }
    // New events still go to the hot partition, in rows no deleted segment had.
    await upload(3, processEvents(400, T0));
    assert.equal(await total(''), 5);
    assert.equal(await segmentsOf(400), 2);
  });

  it('forecasts the disk from the pace of the recent partitions, saying why where it cannot', async () => {
    const forecast = async () => {
      const response = await test.app.inject({ url: `${BASE}/forecast`, headers: as(test.adminToken) });
      assert.equal(response.statusCode, 200, response.body);
      return response.json() as Record<string, number | string | null>;
    };
    const fresh = await forecast();
    assert.deepEqual([fresh.bytesPerDay, fresh.daysUntilFull], [null, null]);
    assert.match(fresh.reason as string, /less than an hour/);
    // Two days of history: the partitions began two days earlier than the test did.
    await backdatePartitions(test, 2 * 86_400_000);
    const written = Object.values(await partitions()).reduce((sum, p) => sum + (p.info.sizeInBytes as number), 0);
    const paced = await forecast();
    assert.ok(written > 0);
    assert.ok(Math.abs((paced.bytesPerDay as number) - written / 2) <= written * 0.01, `${paced.bytesPerDay} bytes a day for ${written} in two days`);
    assert.equal(paced.sampleDays, 2);
    assert.match(paced.sampleStartDate as string, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/u);
    if (testStore() === 'postgres') {
      assert.deepEqual([paced.diskTotalBytes, paced.diskFreeBytes, paced.daysUntilFull], [null, null, null]);
      assert.match(paced.reason as string, /not visible/);
    } else {
      assert.ok((paced.diskTotalBytes as number) >= (paced.diskFreeBytes as number) && (paced.diskFreeBytes as number) > 0);
      assert.ok(Math.abs((paced.daysUntilFull as number) - (paced.diskFreeBytes as number) / (paced.bytesPerDay as number)) < 0.1);
      assert.equal(paced.reason, null);
    }
  });
});
