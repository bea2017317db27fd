/**
 * A process of more than 10,000 events, uploaded through the sensor protocol with the default
 * segment size: it spans two segments, segment 0 is exactly their union in time order, and its
 * parent and child are found across the segment boundary.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, startTestApp, type TestApp } from '../../../test/support/app.js';
import { registerSensor, uploadEvents, type TestSensor } from '../../../test/support/sensors.js';
import { processId } from '../../domain/process-id.js';
import { documentTime } from '../../domain/wire-time.js';
import type { SensorEvent } from '../../ingest/event.schemas.js';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const FIRST_BATCH = 10_000;
const SECOND_BATCH = 2_500;
const PARENT = { pid: 500, start: T0 };
const CHILD = { pid: 501, start: T0 + FIRST_BATCH + 100 };

function ofParent(ts: number, fields: Record<string, unknown>): SensorEvent {
  return { ts, pid: PARENT.pid, process_start: PARENT.start, ...fields } as SensorEvent;
}

/** The parent's start and 9,999 file writes: exactly one full segment. */
function firstBatch(): SensorEvent[] {
  const events = [ofParent(T0, { type: 'process_start', path: 'c:\\tools\\busy.exe', cmdline: 'busy.exe' })];
  for (let i = 1; i < FIRST_BATCH; i++) events.push(ofParent(T0 + i, { type: 'filemod', action: 'first_write', path: `c:\\data\\f${i}.dat` }));
  return events;
}

/** More of the parent's events, a child started past the boundary, and the child's own events. */
function secondBatch(): SensorEvent[] {
  const events: SensorEvent[] = [];
  for (let i = 0; i < SECOND_BATCH - 3; i++) {
    events.push(ofParent(T0 + FIRST_BATCH + i, i % 2
      ? { type: 'regmod', action: 'first_write', path: `\\registry\\machine\\software\\k${i}` }
      : { type: 'netconn', direction: 'outbound', proto: 6, remote_ip: '10.9.9.9', remote_port: 443 }));
  }
  events.push(ofParent(CHILD.start, {
    type: 'childproc', action: 'start', child_pid: CHILD.pid, child_start: CHILD.start, path: 'c:\\tools\\helper.exe',
  }));
  events.push(ofParent(T0 + FIRST_BATCH + SECOND_BATCH, { type: 'process_end' }));
  events.push({
    type: 'process_start', ts: CHILD.start, pid: CHILD.pid, process_start: CHILD.start, path: 'c:\\tools\\helper.exe',
    parent_pid: PARENT.pid, parent_start: PARENT.start,
  } as SensorEvent);
  events.push({ type: 'modload', ts: CHILD.start + 1, pid: CHILD.pid, process_start: CHILD.start, path: 'c:\\x.dll', md5: 'a'.repeat(32) } as SensorEvent);
  return events;
}

describe('a process across the 10,000-event segment boundary', () => {
  let test: TestApp;
  let sensor: TestSensor;
  let parentId: string;
  let childId: string;
  let segmentIds: number[];
  const get = async (url: string) => {
    const response = await test.app.inject({ url, headers: as(test.adminToken) });
    assert.equal(response.statusCode, 200, `${url}: ${response.body.slice(0, 300)}`);
    return response.json();
  };

  before(async () => {
    test = await startTestApp();
    sensor = await registerSensor(test);
    for (const [sequence, events] of [[1, firstBatch()], [2, secondBatch()]] as const) {
      const uploaded = await uploadEvents(test, sensor, sequence, events, { gzip: true });
      assert.equal(uploaded.statusCode, 200, uploaded.body);
    }
    parentId = processId({ sensorId: sensor.id, pid: PARENT.pid, startMs: PARENT.start });
    childId = processId({ sensorId: sensor.id, pid: CHILD.pid, startMs: CHILD.start });
    const { segments } = (await get(`/api/v1/process/${parentId}/segment`)).process;
    segmentIds = segments.map((s: { unique_id: string }) => parseInt(s.unique_id.slice(37), 16));
  });
  after(() => test.close());

  it('spans two segments, the first full', async () => {
    const { segments } = (await get(`/api/v1/process/${parentId}/segment`)).process;
    assert.equal(segments.length, 2);
    assert.deepEqual(segments[0].event_counts, { filemod: FIRST_BATCH - 1 });
    const alternating = SECOND_BATCH - 3;
    assert.deepEqual(segments[1].event_counts, { regmod: Math.floor(alternating / 2), netconn: Math.ceil(alternating / 2), childproc: 1 });
    assert.ok(segmentIds[1]! > segmentIds[0]!);
  });

  it('serves segment 0 as the union of its segments in time order, in every version', async () => {
    for (const version of [1, 4]) {
      const whole = (await get(`/api/v${version}/process/${parentId}/0/event`)).process;
      const parts = await Promise.all(segmentIds.map(async (segment) => (await get(`/api/v${version}/process/${parentId}/${segment}/event`)).process));
      for (const key of ['filemod_complete', 'regmod_complete', 'netconn_complete', 'childproc_complete']) {
        assert.deepEqual(whole[key], parts.flatMap((part) => part[key] ?? []), `v${version} ${key}`);
      }
      assert.equal(whole.filemod_complete.length, FIRST_BATCH - 1);
      assert.equal(whole.filemod_count, FIRST_BATCH - 1);
      assert.equal(whole.netconn_count + whole.regmod_count + whole.childproc_count, SECOND_BATCH - 2);
      assert.deepEqual(whole.ref_segment_id, segmentIds);
      assert.equal(parts[0].filemod_count, FIRST_BATCH - 1, 'a segment\'s document counts its own events');
      assert.equal(parts[1].filemod_count, 0);
    }
    const times = (await get(`/api/v1/process/${parentId}/0/event`)).process.filemod_complete.map((entry: string) => entry.split('|')[1]);
    assert.deepEqual(times, [...times].sort());
  });

  it('pages through all segments with cb.event_start and cb.event_count', async () => {
    let total = 0;
    for (let start = 0; ; start += 5_000) {
      const page = (await get(`/api/v4/process/${parentId}/0/event?cb.event_start=${start}&cb.event_count=5000`)).process;
      const size = ['filemod_complete', 'regmod_complete', 'netconn_complete', 'childproc_complete']
        .reduce((sum, key) => sum + (page[key]?.length ?? 0), 0);
      if (size === 0) break;
      total += size;
    }
    assert.equal(total, FIRST_BATCH - 1 + SECOND_BATCH - 2);
  });

  it('finds the child started past the boundary and the parent whose start is in the first segment', async () => {
    const parent = await get(`/api/v1/process/${parentId}/0`);
    assert.deepEqual(parent.children.map((c: { id: string }) => c.id), [childId]);
    assert.equal(parent.children[0].start, documentTime(CHILD.start));
    const child = await get(`/api/v1/process/${childId}/0`);
    assert.equal(child.process.parent_id, parentId);
    assert.equal(child.process.parent_name, 'busy.exe', 'named from the parent\'s row');
    assert.equal(child.parent.id, parentId);
    assert.equal(child.parent.filemod_count, FIRST_BATCH - 1, 'the parent\'s document covers all its segments');
    assert.equal(child.parent.segment_id, segmentIds[1]);
    const [childproc] = (await get(`/api/v4/process/${parentId}/${segmentIds[1]}/event`)).process.childproc_complete;
    assert.equal(childproc.processId, `${childId}-000000000001`);
    assert.equal((await get(`/api/v4/process/${childId}/1/event`)).process.modload_complete.length, 1, 'the reference segment 1 resolves');
  });

  it('reads a full 10,000-event segment quickly', async (t) => {
    const started = performance.now();
    const { elapsed } = await get(`/api/v4/process/${parentId}/${segmentIds[0]}/event`);
    t.diagnostic(`10,000-event segment: ${(elapsed * 1000).toFixed(1)} ms in the service, ${(performance.now() - started).toFixed(1)} ms with HTTP`);
    assert.ok(elapsed < 1, 'well under a second even on a loaded machine');
  });
});
