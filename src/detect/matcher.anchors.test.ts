/**
 * Live runs evaluate a search only on the new segments holding one of its anchors: these check,
 * through the API, that what a watchlist tags live is exactly what the full search finds — the
 * process search and the catch-up pass of the same watchlist created afterwards — for anchors on
 * command-line word patterns (posted on the process's first segment only), on an OR of a process
 * and an event field, and for a search with no anchor at all.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SensorEvent } from '../ingest/event.schemas.js';
import { as, startTestApp, type TestApp } from '../../test/support/app.js';
import { processEvents, registerSensor, uploadEvents, type TestSensor } from '../../test/support/sensors.js';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');

const QUERIES = [
  'cmdline:*hoam*',
  'cmdline:*ote*pad* OR cmdline:"/c whoami"',
  'process_name:notepad.exe OR domain:example.com',
  '-process_name:notepad.exe',
  'md5:ad7b9c14083b52bc532fba5948342b98 -domain:example.com',
];

/** processEvents with another program and, unless given, no network activity. */
function otherProcess(pid: number, startMs: number, path: string, cmdline: string, domain?: string): SensorEvent[] {
  return processEvents(pid, startMs).flatMap((event): SensorEvent[] => {
    if (event.type === 'process_start') return [{ ...event, path, cmdline, md5: 'd'.repeat(32) }];
    if (event.type === 'netconn') return domain ? [{ ...event, domain }] : [];
    return [event];
  });
}

/** More events of a process already stored: they open new segments with none of its start's terms. */
function laterEvents(pid: number, startMs: number, count: number): SensorEvent[] {
  return Array.from({ length: count }, (_, i) => ({
    type: 'filemod', ts: startMs + 100 + i, pid, process_start: startMs, action: 'create', path: `C:\\Temp\\later-${i}.txt`, file_type: 0,
  }) as SensorEvent);
}

describe('detection matcher: live runs on anchored candidates', () => {
  let test: TestApp;
  let sensor: TestSensor;
  let sequence = 0;
  before(async () => {
    test = await startTestApp({ detectionCoalesceMs: 50, segmentMaxEvents: 4 });
    sensor = await registerSensor(test, { computer_name: 'WIN-ANCHOR-01' });
  });
  after(() => test.close());

  const api = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) => {
    const response = await test.app.inject({ method, url, headers: as(test.adminToken), ...(payload ? { payload } : {}) });
    assert.equal(response.statusCode, 200, `${method} ${url}: ${response.body}`);
    return response.json();
  };
  const documents = async (q: string): Promise<string[]> => {
    const found = await api('GET', `/api/v1/process?q=${encodeURIComponent(q)}&rows=1000`);
    return (found.results as { id: string; segment_id: number }[]).map((r) => `${r.id}/${r.segment_id}`).sort();
  };
  /** The segments a watchlist tagged (a tag search finds whole processes; each names its segments hit). */
  const tagged = async (id: number): Promise<string[]> => {
    const found = await api('GET', `/api/v1/process?q=watchlist_${id}:*&rows=1000`);
    const segments = (found.results as { id: string; watchlists: { wid: string; segments_hit: number[] }[] }[])
      .flatMap((r) => r.watchlists.filter((w) => w.wid === String(id)).flatMap((w) => w.segments_hit.map((s) => `${r.id}/${s}`)));
    return [...new Set(segments)].sort();
  };
  const watchlist = async (name: string, q: string): Promise<number> =>
    (await api('POST', '/api/v1/watchlist', { name, search_query: `cb.urlver=1&q=${encodeURIComponent(q)}`, index_type: 'events' })).id;
  const upload = async (events: SensorEvent[]) => {
    const response = await uploadEvents(test, sensor, ++sequence, events);
    assert.equal(response.statusCode, 200, response.body);
  };
  const settled = async () => {
    await new Promise((resolve) => setTimeout(resolve, 150));
    await test.container.detectionMatcher.idle();
  };

  it('tags live exactly what the full search and a later catch-up pass find', async () => {
    const live = [];
    for (const [i, q] of QUERIES.entries()) live.push(await watchlist(`live ${i}`, q));
    await test.container.detectionMatcher.idle();

    await upload(processEvents(100, T0));
    await upload(otherProcess(200, T0 + 1000, 'C:\\Windows\\notepad.exe', 'notepad.exe c:\\notes.txt'));
    await upload(otherProcess(300, T0 + 2000, 'C:\\Tools\\curl.exe', 'curl.exe https://example.com/', 'example.com'));
    await settled();
    await upload(laterEvents(100, T0, 6));
    await upload(laterEvents(200, T0 + 1000, 6));
    await settled();

    const caughtUp = [];
    for (const [i, q] of QUERIES.entries()) caughtUp.push(await watchlist(`caught up ${i}`, q));
    for (const [i, q] of QUERIES.entries()) {
      const expected = await documents(q);
      assert.ok(expected.length > 0, `${q} finds documents`);
      assert.deepEqual(await tagged(live[i]!), expected, `live tags of ${q}`);
      const began = Date.now();
      while ((await tagged(caughtUp[i]!)).length < expected.length && Date.now() - began < 10_000) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.deepEqual(await tagged(caughtUp[i]!), expected, `catch-up tags of ${q}`);
    }
    const laterSegments = (await documents('cmdline:*hoam*')).length;
    assert.ok(laterSegments >= 3, 'the command line matches the segments opened after the start');
  });
});
