/**
 * Event records in each API version's format (reference core §4.4–4.6), field for field, for a
 * process a sensor uploaded through the sensor protocol; and the order, time window and paging
 * the events routes apply.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { strFromU8, unzipSync } from 'fflate';
import { as, startTestApp, type TestApp } from '../../../test/support/app.js';
import { binaryMetadata, registerSensor, uploadBinary, uploadEvents, type TestSensor } from '../../../test/support/sensors.js';
import type { SensorEvent } from '../../ingest/event.schemas.js';
import { processId } from '../../domain/process-id.js';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const MD5 = { file: 'AB'.repeat(16), module: 'cd'.repeat(16), child: 'ef'.repeat(16), target: '12'.repeat(16), blocked: '34'.repeat(16) };
const SHA = { file: '1'.repeat(64), module: '2'.repeat(64), child: '3'.repeat(64), target: '4'.repeat(64) };

/** One process with every kind of event and every optional field the sensor protocol has. */
function everyKind(pid: number): SensorEvent[] {
  const base = { pid, process_start: T0 };
  const at = (ms: number) => ({ ts: T0 + ms, ...base });
  return [
    { type: 'process_start', ...at(0), path: 'C:\\Tools\\Agent.exe', cmdline: 'agent.exe --run', md5: 'ad7b9c14083b52bc532fba5948342b98' },
    { type: 'filemod', ...at(1), action: 'last_write', path: 'C:\\Temp\\Evil.EXE', md5: MD5.file, sha256: SHA.file, file_type: 1, tamper: true },
    { type: 'filemod', ...at(2), action: 'create', path: 'C:\\Temp\\New.txt' },
    { type: 'regmod', ...at(3), action: 'delete_value', path: '\\REGISTRY\\MACHINE\\SOFTWARE\\Run\\x', tamper: true },
    { type: 'modload', ...at(4), path: 'C:\\Windows\\System32\\Security.dll', md5: MD5.module, sha256: SHA.module },
    {
      type: 'netconn', ...at(5), direction: 'outbound', proto: 6, remote_ip: '137.254.120.31', remote_port: 80, local_ip: '192.168.14.18',
      local_port: 58380, domain: 'dl.javafx.com', proxy_ip: '10.0.0.8', proxy_port: 3128, ja3: '6f0d86606b7ca191fbd2c072e4f99f9f', ja3s: 'f4febc55ea12b31ae17cfb7e614afda8',
    },
    { type: 'netconn', ...at(6), direction: 'inbound', proto: 17, remote_ip: '2001:db8::1', remote_port: 53 },
    {
      type: 'childproc', ...at(7), action: 'start', child_pid: 4242, child_start: T0 + 7, path: 'C:\\Tools\\Runner.exe', md5: MD5.child,
      sha256: SHA.child, cmdline: 'runner.exe -x', username: 'CORP\\bob', suppressed: true,
    },
    { type: 'childproc', ...at(8), action: 'end', child_pid: 4242, child_start: T0 + 7, path: 'C:\\Tools\\Runner.exe', tamper: true },
    {
      type: 'crossproc', ...at(9), action: 'remote_thread', target_pid: 600, target_start: T0 - 5000, target_path: 'C:\\Windows\\System32\\svchost.exe',
      target_md5: MD5.target, target_sha256: SHA.target, access: 2097151, is_target: true, tamper: true,
    },
    { type: 'crossproc', ...at(10), action: 'thread_open', target_pid: 601, target_start: T0 - 6000, target_path: 'C:\\X.exe', access: 5200 },
    {
      type: 'processblock', ...at(11), blocked_md5: MD5.blocked, blocked_path: 'C:\\Bad\\Bad.exe', blocked_cmdline: 'bad.exe', blocked_uid: 'S-1-5-18',
      blocked_username: 'SYSTEM', block_type: 1, block_event: 2, block_result: 3, block_error: 0,
    },
    { type: 'process_end', ...at(12) },
  ] as SensorEvent[];
}

describe('process events', () => {
  let test: TestApp;
  let sensor: TestSensor;
  let id: string;
  const events = async (version: number, query = '') => {
    const response = await test.app.inject({ url: `/api/v${version}/process/${id}/0/event${query}`, headers: as(test.adminToken) });
    assert.equal(response.statusCode, 200, response.body);
    return response.json().process;
  };
  const ref = (pid: number, startMs: number) => `${processId({ sensorId: sensor.id, pid, startMs })}-000000000001`;

  before(async () => {
    test = await startTestApp();
    sensor = await registerSensor(test);
    const content = Buffer.from('a module');
    const metadata = binaryMetadata(content, { observed_filename: 'c:\\windows\\system32\\security.dll', digsig: { result: 'Signed', publisher: 'Microsoft Windows' } });
    assert.equal((await uploadBinary(test, sensor, metadata, content)).statusCode, 200);
    MD5.module = metadata.md5.toLowerCase();
    assert.equal((await uploadEvents(test, sensor, 1, everyKind(300))).statusCode, 200);
    id = processId({ sensorId: sensor.id, pid: 300, startMs: T0 });
  });
  after(() => test.close());

  it('writes v1 records as pipe strings with the fields of reference core §4.5', async () => {
    const process = await events(1);
    assert.deepEqual(process.filemod_complete, [
      `8|2026-11-20 10:00:00.001000|c:\\temp\\evil.exe|${MD5.file.toLowerCase()}|1|true`,
      '1|2026-11-20 10:00:00.002000|c:\\temp\\new.txt|||false',
    ]);
    assert.deepEqual(process.regmod_complete, ['8|2026-11-20 10:00:00.003|\\registry\\machine\\software\\run\\x|true']);
    assert.deepEqual(process.modload_complete, [`2026-11-20 10:00:00.004|${MD5.module}|c:\\windows\\system32\\security.dll`]);
    assert.deepEqual(process.netconn_complete, [
      '2026-11-20 10:00:00.005|-1979811809|80|6|dl.javafx.com|true',
      '2026-11-20 10:00:00.006|2001:db8::1|53|17||false',
    ]);
    assert.deepEqual(process.childproc_complete, [
      `2026-11-20 10:00:00.007|${ref(4242, T0 + 7)}|${MD5.child}|c:\\tools\\runner.exe|4242|true|false`,
      `2026-11-20 10:00:00.008|${ref(4242, T0 + 7)}||c:\\tools\\runner.exe|4242|false|true`,
    ]);
    assert.deepEqual(process.crossproc_complete, [
      `RemoteThread|2026-11-20 10:00:00.009|${ref(600, T0 - 5000)}|${MD5.target}|c:\\windows\\system32\\svchost.exe|0|2097151|true|true`,
      `ProcessOpen|2026-11-20 10:00:00.010|${ref(601, T0 - 6000)}||c:\\x.exe|2|5200|false|false`,
    ]);
    assert.deepEqual(process.processblock_complete.map((entry: string) => JSON.parse(entry)), [{
      timestamp: '2026-11-20T10:00:00.011Z', block_type: 1, block_event: 2, block_result: 3, block_error: 0, blocked_md5: MD5.blocked,
      blocked_path: 'c:\\bad\\bad.exe', blocked_cmdline: 'bad.exe', blocked_uid: 'S-1-5-18', blocked_username: 'SYSTEM',
    }]);
  });

  it('writes v2 netconn as objects with integer addresses and direction as a string', async () => {
    const process = await events(2);
    assert.deepEqual(process.netconn_complete, [
      {
        timestamp: '2026-11-20T10:00:00.005Z', proto: 6, domain: 'dl.javafx.com', direction: 'true', local_ip: -1062728174, local_port: 58380,
        remote_ip: -1979811809, remote_port: 80, proxy_ip: 167772168, proxy_port: 3128,
      },
      { timestamp: '2026-11-20T10:00:00.006Z', proto: 17, domain: '', direction: 'false', remote_ip: '2001:db8::1', remote_port: 53 },
    ]);
    assert.equal(typeof process.childproc_complete[0], 'string', 'childproc objects come with v3');
    assert.deepEqual(process.filemod_complete, (await events(1)).filemod_complete);
  });

  it('writes v3 childproc as objects keyed start or end, without sha256', async () => {
    const process = await events(3);
    assert.deepEqual(process.childproc_complete, [
      {
        md5: MD5.child, path: 'c:\\tools\\runner.exe', commandLine: 'runner.exe -x', userName: 'CORP\\bob', pid: 4242,
        processId: ref(4242, T0 + 7), is_suppressed: true, is_tampered: false, type: 'start', start: '2026-11-20T10:00:00.007000Z',
      },
      {
        md5: '', path: 'c:\\tools\\runner.exe', commandLine: '', userName: '', pid: 4242,
        processId: ref(4242, T0 + 7), is_suppressed: false, is_tampered: true, type: 'end', end: '2026-11-20T10:00:00.008000Z',
      },
    ]);
    assert.deepEqual(process.netconn_complete, (await events(2)).netconn_complete);
  });

  it('writes v4 with text addresses, TLS fingerprints and the sha256 of files, modules, children and targets', async () => {
    const process = await events(4);
    assert.deepEqual(process.netconn_complete[0], {
      timestamp: '2026-11-20T10:00:00.005Z', proto: 6, domain: 'dl.javafx.com', direction: 'true', local_ip: '192.168.14.18', local_port: 58380,
      remote_ip: '137.254.120.31', remote_port: 80, proxy_ip: '10.0.0.8', proxy_port: 3128,
      ja3: '6f0d86606b7ca191fbd2c072e4f99f9f', ja3s: 'f4febc55ea12b31ae17cfb7e614afda8',
    });
    assert.equal(process.netconn_complete[1].remote_ip, '2001:db8::1');
    assert.equal(process.filemod_complete[0], `8|2026-11-20 10:00:00.001000|c:\\temp\\evil.exe|${MD5.file.toLowerCase()}|1|true|${SHA.file}`);
    assert.equal(process.filemod_complete[1].split('|').length, 7, 'an unknown sha256 is an empty last field');
    assert.equal(process.modload_complete[0], `2026-11-20 10:00:00.004|${MD5.module}|c:\\windows\\system32\\security.dll|${SHA.module}`);
    assert.equal(process.crossproc_complete[0].split('|').at(-1), SHA.target);
    assert.equal(process.crossproc_complete[0].split('|').length, 10);
    assert.equal(process.childproc_complete[0].sha256, SHA.child);
    assert.equal(process.childproc_complete[1].sha256, '');
    assert.deepEqual(process.regmod_complete, (await events(1)).regmod_complete);
  });

  it('carries the events envelope of a real 7.x response', async () => {
    const response = await test.app.inject({ url: `/api/v4/process/${id}/0/event`, headers: as(test.adminToken) });
    const body = response.json();
    assert.equal(typeof body.elapsed, 'number');
    const { process } = body;
    assert.deepEqual(process.binaries, { [MD5.module.toUpperCase()]: { digsig_result: 'Signed', digsig_publisher: 'Microsoft Windows' } });
    assert.equal(process.fork_children_count, 0);
    assert.equal(process.exec_events_count, 0);
    assert.equal(process.id, id);
    for (const field of ['min_last_update', 'max_last_update', 'min_last_server_update', 'max_last_server_update', 'ref_segment_id', 'unique_id', 'segment_id']) {
      assert.ok(field in process, field);
    }
    assert.equal(process.netconn_count, 2);
  });

  it('pages with cb.event_start and cb.event_count over all kinds, in time order, as cbapi reads them', async () => {
    const whole = await events(4);
    const seen: Record<string, unknown[]> = {};
    for (let start = 0; ; start += 4) {
      const page = await events(4, `?cb.event_start=${start}&cb.event_count=4`);
      const lists = Object.entries(page).filter(([key]) => key.endsWith('_complete')) as [string, unknown[]][];
      const size = lists.reduce((sum, [, list]) => sum + list.length, 0);
      if (size === 0) break;
      assert.ok(size <= 4);
      for (const [key, list] of lists) (seen[key] ??= []).push(...list);
    }
    for (const key of Object.keys(whole).filter((k) => k.endsWith('_complete'))) assert.deepEqual(seen[key], whole[key], key);
  });

  it('keeps only events inside cb.min_last_update … cb.max_last_update, and refuses a time it cannot read', async () => {
    const process = await events(1, '?cb.min_last_update=2026-11-20T10:00:00.004Z&cb.max_last_update=2026-11-20T10:00:00.005Z');
    assert.deepEqual(Object.keys(process).filter((key) => key.endsWith('_complete')), ['modload_complete', 'netconn_complete']);
    assert.equal(process.netconn_complete.length, 1);
    const bad = await test.app.inject({ url: `/api/v1/process/${id}/0/event?cb.min_last_update=yesterday`, headers: as(test.adminToken) });
    assert.equal(bad.statusCode, 400);
  });

  it('orders events by time even when the sensor sent them out of order', async () => {
    const late = { type: 'modload', ts: T0 + 1000, pid: 301, process_start: T0, path: 'c:\\late.dll', md5: MD5.module };
    const early = { type: 'modload', ts: T0 + 500, pid: 301, process_start: T0, path: 'c:\\early.dll', md5: MD5.module };
    const start = { type: 'process_start', ts: T0, pid: 301, process_start: T0, path: 'c:\\p.exe' };
    assert.equal((await uploadEvents(test, sensor, 2, [start, late])).statusCode, 200);
    assert.equal((await uploadEvents(test, sensor, 3, [early])).statusCode, 200);
    const other = processId({ sensorId: sensor.id, pid: 301, startMs: T0 });
    const response = await test.app.inject({ url: `/api/v1/process/${other}/0/event`, headers: as(test.adminToken) });
    assert.deepEqual(response.json().process.modload_complete.map((entry: string) => entry.split('|')[2]), ['c:\\early.dll', 'c:\\late.dll']);
  });

  it('previews a few events of each kind with query matches marked', async () => {
    const response = await test.app.inject({ url: `/api/v1/process/${id}/0/preview?q=domain:dl.javafx.com`, headers: as(test.adminToken) });
    assert.equal(response.statusCode, 200, response.body);
    const preview = response.json();
    assert.equal(preview.segment, '');
    assert.equal(preview.unique_id.slice(0, 36), id);
    assert.equal(preview.netconn_count, 2);
    assert.equal(preview.netconn_complete[0], '2026-11-20 10:00:00.005|-1979811809|80|6|PREPREPREdl.javafx.comPOSTPOSTPOST|true');
    assert.equal(preview.modload_complete.length, 1);
    const v2 = await test.app.inject({ url: `/api/v2/process/${id}/0/preview?q=javafx`, headers: as(test.adminToken) });
    assert.equal(v2.json().netconn_complete[0].domain, 'dl.PREPREPREjavafxPOSTPOSTPOST.com');
    const bad = await test.app.inject({ url: `/api/v1/process/${id}/0/preview?q=domain:(`, headers: as(test.adminToken) });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().reason, 'query_malformed_syntax');
  });

  it('reports the process as a zip of its document, summary and event CSVs', async () => {
    const response = await test.app.inject({ url: `/api/v1/process/${id}/0/report`, headers: as(test.adminToken) });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'application/zip');
    const files = unzipSync(response.rawPayload);
    assert.deepEqual(Object.keys(files).sort(), [
      'csv/filemods.csv', 'csv/modloads.csv', 'csv/netconn.csv', 'csv/regmods.csv', 'json/process.json', 'json/summary.json',
    ]);
    assert.equal(JSON.parse(strFromU8(files['json/process.json']!)).id, id);
    assert.deepEqual(Object.keys(JSON.parse(strFromU8(files['json/summary.json']!))), ['process', 'parent', 'children', 'siblings']);
    assert.equal(strFromU8(files['csv/netconn.csv']!), [
      'time,direction,protocol,local_ip,local_port,remote_ip,remote_port,domain',
      '2026-11-20T10:00:00.005Z,outbound,6,192.168.14.18,58380,137.254.120.31,80,dl.javafx.com',
      '2026-11-20T10:00:00.006Z,inbound,17,,,2001:db8::1,53,',
      '',
    ].join('\r\n'));
    assert.equal(strFromU8(files['csv/filemods.csv']!).split('\r\n').length, 4, 'header, two rows, end');
  });
});
