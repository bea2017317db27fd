/**
 * Paging that tells no lies (issue 4 item 4): totals are exact, pages reach every match once in
 * a total order whichever plan each page takes, pages of one search keep reading the first
 * page's snapshot while events arrive, and facets over everything match a recount. Named as a
 * route test so that a whole run repeats it with the app on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { searchProcesses, type Params } from '../../../test/support/search.js';
import { registerSensor, uploadEvents, type TestSensor } from '../../../test/support/sensors.js';
import type { SensorEvent } from '../../ingest/event.schemas.js';
import { Endpoint } from '../../sensor/endpoint.js';

describe('process search paging', () => {
  let test: TestApp;
  let sensor: TestSensor;
  let endpoint: Endpoint;
  let sequence = 0;
  const upload = async (events: readonly SensorEvent[]) => {
    const response = await uploadEvents(test, sensor, ++sequence, events);
    assert.equal(response.statusCode, 200, response.body);
  };

  before(async () => {
    test = await startTestApp({ segmentMaxEvents: 5 });
    endpoint = new Endpoint({ seed: 'paging', index: 0, startMs: Date.parse('2026-11-20T10:00:00Z') });
    sensor = await registerSensor(test, endpoint.facts);
    for (let i = 0; i < 4; i++) await upload(endpoint.take(150));
  });
  after(() => test.close());

  /** Every page of `rows` in turn, as a client pages. */
  async function pageThrough(params: Params, rows: number): Promise<{ ids: unknown[]; totals: Set<number> }> {
    const ids: unknown[] = [];
    const totals = new Set<number>();
    for (let start = 0; ; start += rows) {
      const page = await searchProcesses(test, { ...params, rows, start });
      totals.add(page.total_results);
      ids.push(...page.results.map((r) => r.unique_id));
      if (start + rows >= page.total_results) return { ids, totals };
    }
  }

  it('gives the same order page by page as in one page, for every sort, grouped or not', async () => {
    // A query matching part of the data, so small early pages read in index order and later ones sort.
    for (const q of ['', 'process_name:*.exe', 'netconn_count:[1 TO *]', 'modload:*.dll']) {
      for (const sort of ['last_update desc', 'last_update asc', 'start desc', 'process_name asc', 'last_server_update desc', 'childproc_count desc']) {
        for (const grouped of [false, true]) {
          const params: Params = { q, sort, ...(grouped ? { 'cb.group': 'id' } : {}) };
          const whole = await searchProcesses(test, { ...params, rows: 10_000 });
          assert.equal(whole.results.length, whole.total_results);
          const paged = await pageThrough(params, 7);
          assert.deepEqual(paged.ids, whole.results.map((r) => r.unique_id), `${q} / ${sort} / grouped ${grouped}`);
        }
      }
    }
  });

  it('keeps a search\'s pages on one snapshot while events arrive, and shows the new ones to a new search', async () => {
    const params: Params = { q: '', sort: 'last_update desc' };
    const before = await searchProcesses(test, { ...params, rows: 10_000 });
    const first = await searchProcesses(test, { ...params, rows: 10 });
    // New processes and new events of running ones: new segments sort to the top of last_update desc.
    await upload(endpoint.take(200));
    const ids = first.results.map((r) => r.unique_id);
    for (let start = 10; start < first.total_results; start += 10) {
      const page = await searchProcesses(test, { ...params, rows: 10, start });
      assert.equal(page.total_results, first.total_results, 'the total holds still');
      ids.push(...page.results.map((r) => r.unique_id));
    }
    assert.deepEqual(ids, before.results.map((r) => r.unique_id), 'every document once, none of the new ones');
    const after = await searchProcesses(test, { ...params, rows: 0 });
    assert.ok(after.total_results > first.total_results, 'a search from the start sees the new segments');
  });

  it('facets over every document agree with a recount, as events keep arriving', async () => {
    const fields = ['process_name', 'hostname', 'username_full', 'path_full', 'start', 'hour_of_day'];
    const facets = (q: string) => searchProcesses(test, { q, rows: 0, facet: 'true', 'facet.field': fields });
    // An empty query is counted from the tally; a query matching everything in another way is recounted in SQL.
    const compare = async () => {
      const [tallied, recounted] = await Promise.all([facets(''), facets('-process_name:no-such-process')]);
      assert.equal(tallied.total_results, recounted.total_results);
      assert.deepEqual(tallied.facets, recounted.facets);
    };
    await compare();
    await upload(endpoint.take(120));
    await compare();
    // A process first seen through its events, its start arriving later: counted under no name, then under its name.
    const start = Date.parse('2026-11-20T11:00:00Z');
    const late: SensorEvent = { type: 'regmod', ts: start + 5, pid: 77_777, process_start: start, action: 'first_write', path: 'hklm\\software\\late' };
    await upload([late]);
    await compare();
    const named = (await facets('')).facets.process_name!;
    assert.ok(named.some((e) => e.name === ''), 'a process without a start event has no name yet');
    await upload([{ type: 'process_start', ts: start, pid: 77_777, process_start: start, path: 'C:\\late.exe', cmdline: 'late.exe', username: 'x' }]);
    await compare();
    assert.ok((await facets('')).facets.process_name!.some((e) => e.name === 'late.exe'));
  });
});
