/**
 * Large event reads (more than the request thread decodes itself) run in a read worker: they
 * answer exactly what reading the segments one by one on the request thread answers, and they
 * are held to the read pool's time limit.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, startTestApp, testStore, type TestApp } from '../../../test/support/app.js';
import { registerSensor, uploadEvents } from '../../../test/support/sensors.js';
import { processId } from '../../domain/process-id.js';
import type { SensorEvent } from '../../ingest/event.schemas.js';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const EVENTS = 2_600;
const MODULES = ['a1', 'b2', 'c3'].map((hex) => hex.repeat(16));

/** A process with EVENTS events of three kinds, in time order. */
function busyProcess(pid: number): SensorEvent[] {
  const base = { pid, process_start: T0 };
  const events: SensorEvent[] = [{ type: 'process_start', ts: T0, ...base, path: 'C:\\Tools\\Busy.exe', cmdline: 'busy.exe', username: 'CORP\\bob' }];
  for (let i = 1; i < EVENTS; i++) {
    const ts = T0 + i;
    if (i % 3 === 0) events.push({ type: 'filemod', ts, ...base, action: 'create', path: `C:\\Temp\\f${i}.txt` });
    else if (i % 3 === 1) events.push({ type: 'modload', ts, ...base, path: `C:\\Lib\\m${i % 7}.dll`, md5: MODULES[i % 3]! });
    else events.push({ type: 'netconn', ts, ...base, direction: 'outbound', proto: 6, remote_ip: '10.9.8.7', remote_port: i, domain: `h${i}.example.com` });
  }
  return events as SensorEvent[];
}

async function startWithBusyProcess(overrides: Parameters<typeof startTestApp>[0]): Promise<{ test: TestApp; id: string }> {
  // Segments of 1,000 events: each read alone stays on the request thread, all of them (segment 0) does not.
  const test = await startTestApp({ segmentMaxEvents: 1_000, ...overrides });
  const sensor = await registerSensor(test);
  assert.equal((await uploadEvents(test, sensor, 1, busyProcess(700))).statusCode, 200);
  return { test, id: processId({ sensorId: sensor.id, pid: 700, startMs: T0 }) };
}

describe('large event reads', () => {
  let test: TestApp;
  let id: string;
  const get = async (url: string) => {
    const response = await test.app.inject({ url, headers: as(test.adminToken) });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };
  before(async () => ({ test, id } = await startWithBusyProcess({})));
  after(() => test.close());

  it('give segment 0 as reading its segments one by one gives it, in every version', async () => {
    const segments = (await get(`/api/v1/process/${id}/segment`)).process.segments as { unique_id: string }[];
    assert.equal(segments.length, 3);
    for (const version of [1, 2, 3, 4]) {
      const whole = (await get(`/api/v${version}/process/${id}/0/event`)).process;
      const merged: Record<string, unknown[]> = {};
      for (const segment of segments) {
        const part = (await get(`/api/v${version}/process/${id}/${parseInt(segment.unique_id.slice(37), 16)}/event`)).process;
        for (const [key, value] of Object.entries(part)) if (key.endsWith('_complete')) (merged[key] ??= []).push(...(value as unknown[]));
        assert.ok(Object.keys(part.binaries).every((md5) => md5 in whole.binaries));
      }
      for (const key of ['filemod_complete', 'modload_complete', 'netconn_complete']) assert.deepEqual(whole[key], merged[key], `v${version} ${key}`);
      assert.equal(whole.filemod_complete.length + whole.modload_complete.length + whole.netconn_complete.length, EVENTS - 1);
    }
  });

  it('window and page a large read as a small one', async () => {
    const whole = (await get(`/api/v1/process/${id}/0/event`)).process;
    const page = (await get(`/api/v1/process/${id}/0/event?cb.event_start=1500&cb.event_count=30`)).process;
    const all = [...whole.filemod_complete, ...whole.modload_complete, ...whole.netconn_complete].sort();
    const paged = [...page.filemod_complete, ...page.modload_complete, ...page.netconn_complete];
    assert.equal(paged.length, 30);
    assert.ok(paged.every((entry) => all.includes(entry)));
    const preview = await get(`/api/v1/process/${id}/0/preview?q=domain:h1502.example.com`);
    assert.ok(preview.netconn_complete.some((entry: string) => entry.includes('PREPREPREh1502.example.comPOSTPOSTPOST')));
  });
});

describe('large event reads past the time limit', {
  // There the limit bounds the database read (statement_timeout), which fetches a process's chunks in a few
  // milliseconds; decoding them, this test's cost, runs on the request thread (process-events.postgres.ts).
  skip: testStore() === 'postgres' && 'on PostgreSQL the limit bounds the chunk read, not the decoding',
}, () => {
  let test: TestApp;
  let id: string;
  before(async () => ({ test, id } = await startWithBusyProcess({ searchTimeLimitMs: 1 })));
  after(() => test.close());

  it('answer 504 query_timeout, while a segment small enough for the request thread is answered', async () => {
    const whole = await test.app.inject({ url: `/api/v1/process/${id}/0/event`, headers: as(test.adminToken) });
    assert.equal(whole.statusCode, 504, whole.body);
    assert.equal(whole.json().reason, 'query_timeout');
    const segments = await test.app.inject({ url: `/api/v1/process/${id}/segment`, headers: as(test.adminToken) });
    const first = parseInt((segments.json().process.segments[0].unique_id as string).slice(37), 16);
    assert.equal((await test.app.inject({ url: `/api/v1/process/${id}/${first}/event`, headers: as(test.adminToken) })).statusCode, 200);
  });
});
