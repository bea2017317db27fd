/**
 * Event uploads through the real protocol into a real SQLite file: what becomes of them (process
 * rows, segments, chunks, terms), and every way an upload can be refused, counted.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { as, startTestApp, type TestApp } from '../../test/support/app.js';
import { processEvents, registerSensor, uploadEvents, type TestSensor } from '../../test/support/sensors.js';
import { processId, uniqueId } from '../domain/process-id.js';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');

interface SegmentRow {
  id: number;
  segment_id: number;
  event_count: number;
  last_update_ms: number;
  [counter: string]: number;
}

function readDb(test: TestApp): Database.Database {
  return new Database(join(test.config.dataDir, 'vigil.db'), { readonly: true });
}

async function counters(test: TestApp, sensor: TestSensor): Promise<Record<string, number>> {
  const response = await test.app.inject({ url: `/api/v1/sensor/${sensor.id}/ingest`, headers: as(test.adminToken) });
  assert.equal(response.statusCode, 200);
  return response.json();
}

describe('event ingestion', () => {
  let test: TestApp;
  let db: Database.Database;
  before(async () => {
    test = await startTestApp({ segmentMaxEvents: 5 });
    db = readDb(test);
  });
  after(async () => {
    db.close();
    await test.close();
  });

  it('builds the process record from its events, with Carbon Black ids and counters', async () => {
    const sensor = await registerSensor(test, { computer_name: 'WIN-ACCT-07' });
    const response = await uploadEvents(test, sensor, 1, processEvents(4242, T0, { pid: 600, start: T0 - 5000, path: 'C:\\Windows\\Explorer.EXE' }));
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { sequence: 1, duplicate: false, accepted: 8, filtered: 0, rejected: [] });

    const process = db.prepare('SELECT * FROM processes WHERE sensor_id = ? AND pid = 4242').get(sensor.id) as Record<string, unknown>;
    assert.equal(processId({ sensorId: sensor.id, pid: 4242, startMs: T0 }).length, 36);
    assert.equal(process.start_ms, T0);
    assert.equal(process.process_name, 'cmd.exe');
    assert.equal(process.path, 'c:\\windows\\system32\\cmd.exe');
    assert.equal(process.cmdline, 'cmd.exe /c whoami', 'command lines keep their case');
    assert.equal(process.username, 'CORP\\alice');
    assert.equal(process.md5, 'ad7b9c14083b52bc532fba5948342b98');
    assert.equal(process.hostname, 'win-acct-07');
    assert.equal(process.os_type, 'windows');
    assert.equal(process.parent_pid, 600);
    assert.equal(process.parent_name, 'explorer.exe');
    assert.equal(process.end_ms, T0 + 10, 'terminated by its end event');

    const segments = db.prepare('SELECT * FROM segments WHERE process_id = ? ORDER BY segment_id').all(process.id) as SegmentRow[];
    assert.deepEqual(segments.map((s) => s.event_count), [5, 3], 'a new segment opens after 5 events (this test\'s limit)');
    const first = segments[0]!;
    const second = segments[1]!;
    assert.ok(second.segment_id > first.segment_id, 'segment ids are distinct server times');
    assert.ok(Math.abs(first.segment_id - Date.now()) < 60_000, 'segment ids are server epoch ms');
    assert.match(uniqueId(processId({ sensorId: sensor.id, pid: 4242, startMs: T0 }), first.segment_id), /^[0-9a-f-]{36}-[0-9a-f]{12}$/);
    const totals = (key: string) => segments.reduce((sum, s) => sum + (s[key] ?? 0), 0);
    assert.deepEqual(
      ['filemod_count', 'regmod_count', 'netconn_count', 'modload_count', 'childproc_count', 'crossproc_count'].map(totals),
      [1, 1, 1, 1, 1, 1],
    );
    assert.equal(first.last_update_ms, T0 + 4);
    assert.equal(second.last_update_ms, T0 + 10);

    const terms = db.prepare(
      `SELECT t.field || ':' || t.value AS term FROM event_postings p JOIN event_terms t ON t.id = p.term_id WHERE p.segment_row IN (?, ?)
       UNION SELECT t.field || ':' || t.value FROM process_postings p JOIN event_terms t ON t.id = p.term_id WHERE p.process_row = ?
       ORDER BY term`,
    ).all(first.id, second.id, process.id).map((r) => (r as { term: string }).term);
    for (const term of [
      'domain:example.com', 'ipaddr:5db8d822', 'ipport:443', 'filemod:c:\\temp\\out.txt',
      'regmod:registry\\machine\\system\\currentcontrolset\\services\\x', 'modload:c:\\windows\\system32\\ntdll.dll',
      'childproc_name:whoami.exe', 'crossproc_name:lsass.exe', 'crossproc_type:processopen', 'cmdline:whoami',
    ]) {
      assert.ok(terms.includes(term), `indexed ${term}; have ${terms.join(', ')}`);
    }
    const chunks = db.prepare('SELECT SUM(event_count) AS n FROM segment_chunks WHERE segment_row IN (?, ?)').get(first.id, second.id) as { n: number };
    assert.equal(chunks.n, 8);
  });

  it('keeps an empty username empty, as the kernel\'s own processes report it', async () => {
    const sensor = await registerSensor(test);
    const events = processEvents(4, T0).map((e) => (e.type === 'process_start' ? { ...e, path: 'c:\\windows\\system32\\ntoskrnl.exe', username: '', uid: undefined } : e));
    assert.equal((await uploadEvents(test, sensor, 1, events)).statusCode, 200);
    const row = db.prepare('SELECT username FROM processes WHERE sensor_id = ? AND pid = 4').get(sensor.id) as { username: unknown };
    assert.equal(row.username, '', 'stored as the empty string, not as missing');
    const id = processId({ sensorId: sensor.id, pid: 4, startMs: T0 });
    const detail = await test.app.inject({ url: `/api/v1/process/${id}/0`, headers: as(test.adminToken) });
    assert.equal(detail.statusCode, 200, detail.body);
    assert.equal(detail.json().process.username, '', 'the process document says "" (reference interface-spec: it may be empty)');
  });

  it('stores a retried batch once and records a gap in the sequence', async () => {
    const sensor = await registerSensor(test);
    const events = processEvents(100, T0 + 1000);
    assert.equal((await uploadEvents(test, sensor, 1, events)).json().duplicate, false);
    const retry = await uploadEvents(test, sensor, 1, events);
    assert.equal(retry.statusCode, 200);
    assert.deepEqual(retry.json(), { sequence: 1, duplicate: true, accepted: 0, filtered: 0, rejected: [] });
    const stored = db.prepare(
      'SELECT SUM(s.event_count) AS n FROM segments s JOIN processes p ON p.id = s.process_id WHERE p.sensor_id = ?',
    ).get(sensor.id) as { n: number };
    assert.equal(stored.n, events.length, 'the retry stored nothing');
    assert.equal((await uploadEvents(test, sensor, 5, processEvents(200, T0 + 2000))).statusCode, 200);
    const counts = await counters(test, sensor);
    assert.equal(counts.batches_accepted, 2);
    assert.equal(counts.batches_duplicate, 1);
    assert.equal(counts.sequence_gaps, 1);
    assert.equal(counts.sequences_missing, 3);
    assert.equal(counts.events_accepted, 16);
  });

  it('keeps apart two processes of one batch that share a pid, each with its own events', async () => {
    const sensor = await registerSensor(test);
    const first = processEvents(700, T0);
    const second = processEvents(700, T0 + 60_000);
    const interleaved = first.flatMap((event, i) => [event, second[i]!]);
    const response = await uploadEvents(test, sensor, 1, interleaved);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().accepted, 16);
    const processes = db.prepare(
      `SELECT p.start_ms, p.end_ms, p.process_name, SUM(s.event_count) AS events, SUM(s.filemod_count) AS filemods
       FROM processes p JOIN segments s ON s.process_id = p.id WHERE p.sensor_id = ? AND p.pid = 700 GROUP BY p.id ORDER BY p.start_ms`,
    ).all(sensor.id);
    assert.deepEqual(processes, [
      { start_ms: T0, end_ms: T0 + 10, process_name: 'cmd.exe', events: 8, filemods: 1 },
      { start_ms: T0 + 60_000, end_ms: T0 + 60_010, process_name: 'cmd.exe', events: 8, filemods: 1 },
    ]);
  });

  it('accepts gzip uploads', async () => {
    const sensor = await registerSensor(test);
    const response = await uploadEvents(test, sensor, 1, processEvents(300, T0), { gzip: true });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().accepted, 8);
  });

  it('rejects bad events one by one with a named reason and keeps the rest', async () => {
    const sensor = await registerSensor(test);
    const good = processEvents(400, T0);
    const response = await uploadEvents(test, sensor, 1, [
      ...good,
      { type: 'telepathy', ts: T0, pid: 400, process_start: T0 },
      { ...good[3], remote_port: 70000 },
      { type: 'filemod', ts: T0, pid: 400 },
    ]);
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.accepted, good.length);
    assert.deepEqual(body.rejected.map((r: { index: number; reason: string }) => [r.index, r.reason]), [
      [8, 'unknown_event_type'], [9, 'invalid_event'], [10, 'invalid_event'],
    ]);
    assert.match(body.rejected[1].detail, /remote_port/);
    const counts = await counters(test, sensor);
    assert.equal(counts['events_rejected.unknown_event_type'], 1);
    assert.equal(counts['events_rejected.invalid_event'], 2);
  });

  it('refuses unreadable batches whole, with a 4xx and a counted reason, and stays up', async () => {
    const sensor = await registerSensor(test);
    const send = (payload: Buffer | string, headers: Record<string, string> = {}) =>
      test.app.inject({ method: 'POST', url: '/sensor/v1/events', headers: { ...sensor.headers, 'content-type': 'application/json', ...headers }, payload });
    const malformed = await send('{"sequence": 1, "events": [');
    assert.equal(malformed.statusCode, 400);
    assert.equal(malformed.json().reason, 'malformed_json');
    const notGzip = await send('plain text', { 'content-encoding': 'gzip' });
    assert.equal(notGzip.statusCode, 400);
    assert.equal(notGzip.json().reason, 'bad_encoding');
    const shapeless = await send(JSON.stringify({ events: [] }));
    assert.equal(shapeless.statusCode, 400);
    assert.equal(shapeless.json().reason, 'invalid_batch');
    const tooMany = await send(JSON.stringify({ sequence: 1, events: new Array(10_001).fill({}) }));
    assert.equal(tooMany.statusCode, 413);
    assert.equal(tooMany.json().reason, 'batch_too_large');
    const unlabelled = await send(JSON.stringify({ sequence: 1, events: [] }), { 'content-type': '' });
    assert.equal(unlabelled.statusCode, 415);
    assert.equal(unlabelled.json().reason, 'unsupported_media_type');
    const counts = await counters(test, sensor);
    for (const reason of ['malformed_json', 'bad_encoding', 'invalid_batch', 'batch_too_large', 'unsupported_media_type']) {
      assert.equal(counts[`batches_rejected.${reason}`], 1, reason);
    }
    assert.equal((await uploadEvents(test, sensor, 1, processEvents(500, T0))).statusCode, 200, 'still serving');
  });

  it('refuses an upload without a body as malformed JSON, and counts it', async () => {
    const sensor = await registerSensor(test);
    const empty = await test.app.inject({ method: 'POST', url: '/sensor/v1/events', headers: sensor.headers });
    assert.equal(empty.statusCode, 400, empty.body);
    assert.equal(empty.json().reason, 'malformed_json');
    assert.equal((await counters(test, sensor))['batches_rejected.malformed_json'], 1);
  });

  it('refuses uploads without valid sensor credentials', async () => {
    const sensor = await registerSensor(test);
    const forged = { ...sensor, headers: { authorization: `Sensor ${sensor.id}:${'0'.repeat(64)}` } };
    assert.equal((await uploadEvents(test, forged, 1, [])).statusCode, 401);
    const apiToken = await test.app.inject({
      method: 'POST', url: '/sensor/v1/events', headers: as(test.adminToken), payload: { sequence: 1, events: [] },
    });
    assert.equal(apiToken.statusCode, 401, 'an analyst token is not a sensor credential');
  });
});

describe('ingress filters at ingest', () => {
  let test: TestApp;
  let db: Database.Database;
  before(async () => {
    test = await startTestApp();
    db = readDb(test);
  });
  after(async () => {
    db.close();
    await test.close();
  });

  const createFilter = async (filter: Record<string, unknown>) => {
    const response = await test.app.inject({
      method: 'POST', url: '/api/v1/ingress_whitelist', headers: as(test.adminToken), payload: [filter],
    });
    assert.equal(response.statusCode, 200, response.body);
  };
  const storedEvents = (sensor: TestSensor, pid: number) =>
    (db.prepare(
      'SELECT COALESCE(SUM(s.event_count), 0) AS n FROM segments s JOIN processes p ON p.id = s.process_id WHERE p.sensor_id = ? AND p.pid = ?',
    ).get(sensor.id, pid) as { n: number }).n;

  it('drops every event of a matching process and its children within the descendant level, and counts them', async () => {
    await createFilter({
      name: 'quiet updater', description: 'noisy', path_filters: ['**/updater.exe'], descendant_filtering_level: 1,
    });
    const sensor = await registerSensor(test);
    const updater = processEvents(1000, T0).map((e) => (e.type === 'process_start' ? { ...e, path: 'C:\\Program Files\\App\\Updater.exe' } : e));
    const child = processEvents(1001, T0 + 5, { pid: 1000, start: T0, path: 'C:\\Program Files\\App\\Updater.exe' });
    const grandchild = processEvents(1002, T0 + 9, { pid: 1001, start: T0 + 5, path: 'C:\\Windows\\System32\\cmd.exe' });
    const other = processEvents(2000, T0);
    const response = await uploadEvents(test, sensor, 1, [...updater, ...child, ...grandchild, ...other]);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { sequence: 1, duplicate: false, accepted: 16, filtered: 16, rejected: [] });
    assert.equal(storedEvents(sensor, 1000), 0);
    assert.equal(storedEvents(sensor, 1001), 0, 'a child is within descendant level 1');
    assert.equal(storedEvents(sensor, 1002), 8, 'a grandchild is not');
    assert.equal(storedEvents(sensor, 2000), 8);
    assert.equal((await counters(test, sensor)).events_filtered, 16);
    const filters = (await test.app.inject({ url: '/api/v1/ingress_whitelist', headers: as(test.adminToken) })).json();
    const quiet = (filters as { name: string; hit_rate: number }[]).find((f) => f.name === 'quiet updater');
    assert.equal(quiet?.hit_rate, 0.25, 'one of the four new processes matched the filter itself');
  });

  it('drops only the listed event types of a process when filter_all_events is off', async () => {
    await createFilter({
      name: 'no telemetry domains', description: '', cmdline_filters: ['rxi|.*telemetry.*'], filter_all_events: false,
      netconn_filters: ['example.com'],
    });
    const sensor = await registerSensor(test);
    const events = processEvents(3000, T0).map((e) => (e.type === 'process_start' ? { ...e, cmdline: 'agent.exe --TELEMETRY' } : e));
    const response = await uploadEvents(test, sensor, 1, events);
    assert.equal(response.json().filtered, 1, 'only the netconn to example.com');
    assert.equal(storedEvents(sensor, 3000), 7);
  });
});
