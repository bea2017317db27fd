/**
 * Sensors in tests speak the real protocol through app.inject: they register with the group's
 * install code read over the analyst API and upload events the way docs/sensor-protocol.md says.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { SensorEvent } from '../../src/ingest/event.schemas.js';
import type { BinaryMetadata } from '../../src/modules/binaries/binary-upload.schemas.js';
import type { CheckinBody, CheckinReply, RegisterBody } from '../../src/modules/sensors/sensor-protocol.schemas.js';
import { as, type TestApp } from './app.js';

export interface TestSensor {
  id: number;
  secret: string;
  headers: { authorization: string };
}

export async function installCode(test: TestApp, groupId = 1): Promise<string> {
  const response = await test.app.inject({ url: `/api/v1/group/${groupId}/install_code`, headers: as(test.adminToken) });
  if (response.statusCode !== 200) throw new Error(`install code: ${response.statusCode} ${response.body}`);
  return response.json().install_code as string;
}

export function hostFacts(overrides: Partial<RegisterBody> = {}): Omit<RegisterBody, 'install_code'> {
  return {
    os_type: 'windows',
    host_type: 'workstation',
    computer_name: 'WIN-TEST-01',
    computer_dns_name: 'win-test-01.corp.example',
    build_version_string: '006.001.002.71109',
    boot_id: '7',
    network_adapters: [{ ip: '10.1.2.3', mac: '00155D019C08' }],
    ...overrides,
  };
}

export async function registerSensor(test: TestApp, overrides: Partial<RegisterBody> = {}, groupId = 1): Promise<TestSensor> {
  const response = await test.app.inject({
    method: 'POST',
    url: '/sensor/v1/register',
    payload: { install_code: await installCode(test, groupId), ...hostFacts(overrides) },
  });
  if (response.statusCode !== 200) throw new Error(`register: ${response.statusCode} ${response.body}`);
  const { sensor_id: id, sensor_secret: secret } = response.json();
  return { id, secret, headers: { authorization: `Sensor ${id}:${secret}` } };
}

/** One check-in as the sensor's clock says now; the server's reply (an error unless 200). */
export async function checkin(test: TestApp, sensor: TestSensor, body: Partial<CheckinBody> = {}): Promise<CheckinReply> {
  const response = await test.app.inject({
    method: 'POST', url: '/sensor/v1/checkin', headers: sensor.headers, payload: { sensor_time: Date.now(), ...body },
  });
  if (response.statusCode !== 200) throw new Error(`check-in: ${response.statusCode} ${response.body}`);
  return response.json();
}

export function uploadEvents(
  test: TestApp,
  sensor: TestSensor,
  sequence: number,
  events: readonly unknown[],
  options: { gzip?: boolean } = {},
) {
  const json = Buffer.from(JSON.stringify({ sequence, events }));
  return test.app.inject({
    method: 'POST',
    url: '/sensor/v1/events',
    headers: {
      ...sensor.headers,
      'content-type': 'application/json',
      ...(options.gzip ? { 'content-encoding': 'gzip' } : {}),
    },
    payload: options.gzip ? gzipSync(json) : json,
  });
}

/** Metadata as a sensor reports a file: hashes and size computed from `content`, the rest given. */
export function binaryMetadata(content: Buffer, fields: Omit<BinaryMetadata, 'md5' | 'sha256' | 'size'>): BinaryMetadata {
  return {
    md5: createHash('md5').update(content).digest('hex').toUpperCase(),
    sha256: createHash('sha256').update(content).digest('hex'),
    size: content.length,
    ...fields,
  };
}

/** POST /sensor/v1/binaries: metadata, with the content unless it is left out. */
export function uploadBinary(test: TestApp, sensor: TestSensor, metadata: BinaryMetadata, content?: Buffer) {
  return test.app.inject({
    method: 'POST',
    url: '/sensor/v1/binaries',
    headers: sensor.headers,
    payload: { metadata, ...(content ? { content: content.toString('base64') } : {}) },
  });
}

const T0 = Date.parse('2026-11-20T10:00:00.000Z');

/** A small process: start, a few events of each kind, end. Times count from `startMs`. */
export function processEvents(pid: number, startMs = T0, parent?: { pid: number; start: number; path: string }): SensorEvent[] {
  const base = { pid, process_start: startMs };
  return [
    {
      type: 'process_start', ts: startMs, ...base,
      path: 'C:\\Windows\\System32\\cmd.exe', cmdline: 'cmd.exe /c whoami', username: 'CORP\\alice', uid: 'S-1-5-21-1',
      md5: 'AD7B9C14083B52BC532FBA5948342B98', sha256: 'a'.repeat(64),
      ...(parent ? { parent_pid: parent.pid, parent_start: parent.start, parent_path: parent.path } : {}),
    },
    { type: 'filemod', ts: startMs + 1, ...base, action: 'create', path: 'C:\\Temp\\Out.TXT', file_type: 0 },
    { type: 'regmod', ts: startMs + 2, ...base, action: 'first_write', path: '\\REGISTRY\\MACHINE\\SYSTEM\\ControlSet001\\Services\\x' },
    {
      type: 'netconn', ts: startMs + 3, ...base, direction: 'outbound', proto: 6, remote_ip: '93.184.216.34', remote_port: 443,
      local_ip: '10.1.2.3', local_port: 50123, domain: 'Example.COM.',
    },
    { type: 'modload', ts: startMs + 4, ...base, path: 'C:\\Windows\\System32\\ntdll.dll', md5: 'B'.repeat(32) },
    {
      type: 'childproc', ts: startMs + 5, ...base, action: 'start', child_pid: pid + 1, child_start: startMs + 5,
      path: 'C:\\Windows\\System32\\whoami.exe', md5: 'c'.repeat(32),
    },
    {
      type: 'crossproc', ts: startMs + 6, ...base, action: 'process_open', target_pid: 4, target_start: T0 - 1000,
      target_path: 'C:\\Windows\\System32\\lsass.exe', access: 2097151,
    },
    { type: 'process_end', ts: startMs + 10, ...base },
  ];
}

/**
 * A fleet registered through the real registration API, `parallel` registrations in flight at
 * once: hosts named `${prefix}-00001` onwards, so the last one sorts last.
 */
export async function registerFleet(test: TestApp, count: number, prefix: string, parallel = 50): Promise<void> {
  const code = await installCode(test);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const name = `${prefix}-${String(++next).padStart(5, '0')}`;
      const response = await test.app.inject({ method: 'POST', url: '/sensor/v1/register', payload: { install_code: code, ...hostFacts({ computer_name: name }) } });
      if (response.statusCode !== 200) throw new Error(`register ${name}: ${response.statusCode} ${response.body}`);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}
