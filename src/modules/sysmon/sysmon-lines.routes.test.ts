/**
 * The JSON-lines endpoint, end to end on a real app and database: real recordings go in as a
 * shipper sends them (gzip, with an ingest key), and an analyst finds the attack through the
 * Carbon Black API; bad lines are counted by reason and never cost the good ones beside them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { as, startTestApp, type TestApp } from '../../../test/support/app.js';
import { searchProcesses } from '../../../test/support/search.js';
import { registerSensor } from '../../../test/support/sensors.js';
import { recordingLines, recordingPath } from '../../../test/support/sysmon-fixtures.js';

const URL_PATH = '/ingest/v1/sysmon';

describe('Sysmon JSON-lines ingest', () => {
  let test: TestApp;
  let key: string;
  before(async () => {
    test = await startTestApp({ eventUploadLimitBytes: 4 * 1024 * 1024 });
    key = (await test.app.inject({ method: 'POST', url: '/api/v1/group/1/ingest_key', headers: as(test.adminToken), payload: {} })).json().key;
  });
  after(async () => test.close());

  const send = (body: Buffer | string, headers: Record<string, string> = {}) =>
    test.app.inject({ method: 'POST', url: URL_PATH, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson', ...headers }, payload: body });

  it('stores the LSASS dump recording as sent (gzip), and an analyst finds the attack through the API', async () => {
    const lines = recordingLines('psh_lsass_memory_dump_comsvcs');
    const response = await send(readFileSync(recordingPath('psh_lsass_memory_dump_comsvcs')), { 'content-encoding': 'gzip' });
    assert.equal(response.statusCode, 200, response.body);
    const reply = response.json();
    assert.equal(reply.read, lines.filter((l) => l.trim() !== '').length);
    assert.equal(reply.read, reply.stored + Object.values(reply.skipped as Record<string, number>).reduce((a, b) => a + b, 0), 'every event accounted for');
    assert.ok(reply.skipped.not_sysmon > 0);
    // This lab's Security events carry local time only: counted and listed, never guessed.
    assert.deepEqual([...new Set(reply.errors.map((e: { reason: string }) => e.reason))], ['missing_time']);
    assert.equal(reply.hosts.length, 1);
    assert.equal(reply.hosts[0].hostname, 'WORKSTATION5');

    const found = await searchProcesses(test, { q: 'process_name:rundll32.exe cmdline:minidump' });
    assert.equal(found.total_results, 1, JSON.stringify(found.results));
    const rundll = found.results[0]!;
    assert.equal(rundll.hostname, 'workstation5');
    assert.equal(rundll.parent_name, 'powershell.exe');
    assert.equal(rundll.process_pid, 4824);
    assert.match(String(rundll.cmdline), /comsvcs\.dll MiniDump 756/);
    assert.equal(rundll.username, 'WORKSTATION5\\wardog');
    assert.equal(rundll.process_md5, 'f68af942fd7ccc0e7bab1a2335d2ad26');
    assert.equal(rundll.sensor_id, reply.hosts[0].sensor_id);

    const events = await test.app.inject({ url: `/api/v4/process/${rundll.id}/0/event`, headers: as(test.adminToken) });
    assert.equal(events.statusCode, 200, events.body);
    const process = events.json().process;
    assert.ok((process.crossproc_complete as string[]).some((e) => /lsass\.exe/.test(e)), 'its open of lsass');
    assert.ok((process.filemod_complete as string[]).some((e) => /lsass-comsvcs\.dmp/.test(e)), 'the dump file');

    // The PowerShell parent started before the recording: it is known by its children and acts.
    const parent = await searchProcesses(test, { q: 'childproc_name:rundll32.exe' });
    assert.deepEqual(parent.results.map((r) => r.process_pid), [6100], 'the parent lists its child');
    const lsass = await searchProcesses(test, { q: 'crossproc_name:rundll32.exe' });
    assert.ok(lsass.results.some((r) => r.process_pid === 756), 'lsass records that rundll32 opened it');
  });

  it('records the files the host ran and loaded as binaries seen on it, with their signatures, without content', async () => {
    const comsvcs = await test.app.inject({ url: '/api/v1/binary/4497582A91B3B284661143010AE35D57/summary', headers: as(test.adminToken) });
    assert.equal(comsvcs.statusCode, 200, comsvcs.body);
    const binary = comsvcs.json();
    assert.deepEqual(binary.observed_filename, ['c:\\windows\\system32\\comsvcs.dll']);
    assert.equal(binary.digsig_result, 'Signed');
    assert.equal(binary.digsig_publisher, 'Microsoft Windows');
    assert.equal(binary.company_name, 'Microsoft Corporation');
    assert.equal(binary.original_filename, 'COMSVCS.DLL');
    const rundll = await test.app.inject({ url: '/api/v1/binary/f68af942fd7ccc0e7bab1a2335d2ad26/summary', headers: as(test.adminToken) });
    assert.equal(rundll.json().original_filename, 'RUNDLL32.EXE');
    assert.equal((await test.app.inject({ url: '/api/v1/binary/4497582A91B3B284661143010AE35D57', headers: as(test.adminToken) })).statusCode, 404, 'no content');
    const found = await test.app.inject({ url: '/api/v1/binary?q=digsig_publisher:%22Microsoft%20Windows%22%20observed_filename:comsvcs.dll', headers: as(test.adminToken) });
    assert.equal(found.json().total_results, 1, 'binary search finds it');
  });

  it('makes the host a sensor of the key\'s group, with Sysmon\'s counters', async () => {
    const sensors = await test.app.inject({ url: '/api/v1/sensor?hostname=WORKSTATION5', headers: as(test.adminToken) });
    const [sensor] = sensors.json();
    assert.equal(sensor.computer_name, 'WORKSTATION5');
    assert.equal(sensor.group_id, 1);
    assert.equal(sensor.os_type, 1, 'Windows');
    assert.equal(sensor.status, 'Online', 'its events just arrived');
    const counters = (await test.app.inject({ url: `/api/v1/sensor/${sensor.id}/ingest`, headers: as(test.adminToken) })).json();
    assert.ok(counters.events_accepted > 0);
    assert.equal(counters['sysmon_skipped.missing_time'], 4, 'the host\'s Security events without a UTC time');
  });

  it('refuses bad lines one by one, by name, and keeps the good ones beside them', async () => {
    const good = {
      EventID: 1, Channel: 'Microsoft-Windows-Sysmon/Operational', Hostname: 'BADLINES-HOST', UtcTime: '2024-05-01 10:00:00.250',
      ProcessGuid: '{11111111-0000-6632-0000-000000000001}', ProcessId: '4242', Image: 'C:\\Tools\\good.exe', CommandLine: 'good.exe --first',
    };
    const body = [
      JSON.stringify(good),
      '{"EventID": 1, "Image": ',
      '[1,2,3]',
      JSON.stringify({ ...good, UtcTime: '1970-01-01 00:00:00.000' }),
      JSON.stringify({ ...good, UtcTime: '2099-01-01 00:00:00.000' }),
      JSON.stringify({ ...good, ProcessGuid: undefined }),
      JSON.stringify({ ...good, Unexpected: { deeply: ['nested'] }, ProcessId: '4243', CommandLine: 'good.exe --second' }),
      '',
    ].join('\n');
    const response = await send(body);
    assert.equal(response.statusCode, 200, response.body);
    const reply = response.json();
    assert.equal(reply.read, 7);
    assert.equal(reply.stored, 2, 'an unknown field is no reason to refuse an event');
    assert.deepEqual(reply.skipped, { malformed_line: 2, time_out_of_range: 2, missing_process_guid: 1 });
    assert.deepEqual(reply.errors.map((e: { line: number; reason: string }) => [e.line, e.reason]),
      [[2, 'malformed_line'], [3, 'malformed_line'], [4, 'time_out_of_range'], [5, 'time_out_of_range'], [6, 'missing_process_guid']]);
    const found = await searchProcesses(test, { q: 'hostname:badlines-host' });
    assert.equal(found.total_results, 2);
    const counters = (await test.app.inject({ url: `/api/v1/sensor/${reply.hosts[0].sensor_id}/ingest`, headers: as(test.adminToken) })).json();
    assert.equal(counters['sysmon_skipped.time_out_of_range'], 2, 'counted on the host, too');
  });

  it('keeps Windows Security process events of a host without Sysmon: 4688 starts and 4689 ends the process', async () => {
    const security = { Channel: 'Security', Hostname: 'NOSYSMON.corp.example', SubjectUserName: 'alice', SubjectDomainName: 'CORP' };
    const body = [
      JSON.stringify({ ...security, EventID: 4688, '@timestamp': '2024-05-01T10:00:00.000Z', NewProcessId: '0x1a2b', NewProcessName: 'C:\\Windows\\System32\\whoami.exe', CommandLine: 'whoami /all', ProcessId: '0x400', ParentProcessName: 'C:\\Windows\\System32\\cmd.exe' }),
      JSON.stringify({ ...security, EventID: 4689, '@timestamp': '2024-05-01T10:00:01.000Z', ProcessId: '0x1a2b' }),
    ].join('\n');
    const reply = (await send(body)).json();
    assert.equal(reply.stored, 2, JSON.stringify(reply));
    const found = await searchProcesses(test, { q: 'hostname:nosysmon process_name:whoami.exe' });
    assert.equal(found.total_results, 1);
    assert.equal(found.results[0]!.cmdline, 'whoami /all');
    assert.equal(found.results[0]!.username, 'CORP\\alice');
    assert.equal(found.results[0]!.parent_name, '(unknown)', 'its parent started before anything was sent: pid and name only');
    assert.equal((await searchProcesses(test, { q: 'hostname:nosysmon parent_name:cmd.exe' })).total_results, 1);
    assert.equal(found.results[0]!.process_pid, 0x1a2b);
    assert.equal(found.results[0]!.terminated, true);
  });

  it('answers a body too large, as sent or once unzipped, with a named 413, and unreadable gzip with a 400', async () => {
    const tooLarge = await send(Buffer.alloc(5 * 1024 * 1024, 'x'));
    assert.equal(tooLarge.statusCode, 413);
    assert.equal(tooLarge.json().reason, 'batch_too_large');
    const bomb = await send(gzipSync(Buffer.alloc(test.config.eventUploadDecodedLimitBytes + 1, '\n')), { 'content-encoding': 'gzip' });
    assert.equal(bomb.statusCode, 413);
    const whole = readFileSync(recordingPath('psh_lsass_memory_dump_comsvcs'));
    const truncated = whole.subarray(0, whole.length >> 1);
    const broken = await send(truncated, { 'content-encoding': 'gzip' });
    assert.equal(broken.statusCode, 400);
    assert.equal(broken.json().reason, 'bad_encoding');
  });

  it('stores a batch named by X-Vigil-Batch once, however often it is sent', async () => {
    const body = recordingLines('cmd_sam_copy_esentutl').join('\n');
    const first = await send(body, { 'x-vigil-batch': 'sam-copy-0' });
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json().duplicate, false);
    const again = await send(body, { 'x-vigil-batch': 'sam-copy-0' });
    assert.equal(again.json().duplicate, true);
    assert.equal(again.json().stored, 0);
    const esentutl = await searchProcesses(test, { q: 'process_name:esentutl.exe' });
    assert.ok(esentutl.total_results >= 1);
    const ids = esentutl.results.map((r) => r.id);
    assert.equal(new Set(ids).size, ids.length);
    assert.equal((await send(body, { 'x-vigil-batch': 'no spaces allowed' })).statusCode, 400);
  });

  it('gives a new host one sensor and loses nothing when its batches arrive at once', async () => {
    const line = (pid: number) => JSON.stringify({
      EventID: 1, Channel: 'Microsoft-Windows-Sysmon/Operational', Hostname: 'BURST-HOST', UtcTime: '2024-05-01 10:00:00.000',
      ProcessGuid: '{11111111-0000-6632-0000-000000000001}', ProcessId: String(pid), Image: 'C:\\burst.exe',
    });
    const replies = await Promise.all(Array.from({ length: 8 }, (_, batch) =>
      send(Array.from({ length: 50 }, (_, i) => line(10_000 + batch * 50 + i)).join('\n'))));
    const sensorIds = new Set(replies.map((r) => r.json().hosts[0].sensor_id));
    assert.equal(sensorIds.size, 1, 'one sensor');
    assert.equal((await searchProcesses(test, { q: 'hostname:burst-host', rows: 1 })).total_results, 400, 'every batch stored');
    const counters = (await test.app.inject({ url: `/api/v1/sensor/${[...sensorIds][0]}/ingest`, headers: as(test.adminToken) })).json();
    assert.equal(counters.batches_accepted, 8);
    assert.equal(counters.batches_duplicate, undefined, 'no batch took another\'s sequence');
  });

  it('takes only an ingest key: no API token, no sensor secret, no revoked key', async () => {
    const sensor = await registerSensor(test);
    const line = '{}';
    const post = (headers: Record<string, string>) => test.app.inject({ method: 'POST', url: URL_PATH, headers: { 'content-type': 'application/x-ndjson', ...headers }, payload: line });
    assert.equal((await post({})).statusCode, 401);
    assert.equal((await post(as(test.adminToken))).statusCode, 401);
    assert.equal((await post({ authorization: `Bearer ${test.adminToken}` })).statusCode, 401);
    assert.equal((await post(sensor.headers)).statusCode, 401);
    const created = (await test.app.inject({ method: 'POST', url: '/api/v1/group/1/ingest_key', headers: as(test.adminToken), payload: {} })).json();
    assert.equal((await post({ authorization: `Bearer ${created.key}` })).statusCode, 200);
    await test.app.inject({ method: 'DELETE', url: `/api/v1/group/1/ingest_key/${created.id}`, headers: as(test.adminToken) });
    assert.equal((await post({ authorization: `Bearer ${created.key}` })).statusCode, 401);
  });
});
