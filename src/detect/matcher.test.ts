/**
 * The detection matcher end to end: sensors upload through the real protocol, watchlists and feeds
 * are created through the API, and what the API shows afterwards (tags on documents, searchable tag
 * fields, counters, alerts) is checked — as events arrive, over existing data, and after a restart.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../app.js';
import { createContainer } from '../container.js';
import { as, startTestApp, type TestApp } from '../../test/support/app.js';
import { cbfeed, writeFeedFile } from '../../test/support/feeds.js';
import { processEvents, registerSensor, uploadEvents, type TestSensor } from '../../test/support/sensors.js';
import { tempDir } from '../../test/support/temp.js';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const CMD_MD5 = 'ad7b9c14083b52bc532fba5948342b98';

describe('detection matcher', () => {
  let test: TestApp;
  let sensor: TestSensor;
  let dir: string;
  let sequence = 0;
  before(async () => {
    test = await startTestApp({ detectionCoalesceMs: 50 });
    dir = tempDir('vigil-match-');
    sensor = await registerSensor(test, { computer_name: 'WIN-MATCH-01' });
  });
  after(async () => {
    await test.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const api = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) => {
    const response = await test.app.inject({ method, url, headers: as(test.adminToken), ...(payload ? { payload } : {}) });
    assert.equal(response.statusCode, 200, `${method} ${url}: ${response.body}`);
    return response.json();
  };
  const upload = async (pid: number, startMs: number) => {
    const response = await uploadEvents(test, sensor, ++sequence, processEvents(pid, startMs));
    assert.equal(response.statusCode, 200, response.body);
  };
  const watchlist = async (name: string, q: string): Promise<number> => {
    const { id } = await api('POST', '/api/v1/watchlist', { name, search_query: `cb.urlver=1&q=${encodeURIComponent(q)}`, index_type: 'events' });
    await api('PUT', `/api/v1/watchlist/${id}/action_type/3`, { enabled: true });
    return id;
  };
  const search = async (q: string) => api('GET', `/api/v1/process?q=${encodeURIComponent(q)}&rows=100`);
  const alerts = async (q: string) => (await api('GET', `/api/v2/alert?q=${encodeURIComponent(q)}&rows=100`)).results;
  const until = async (what: string, check: () => Promise<boolean>, limitMs = 5000) => {
    const began = Date.now();
    while (!(await check())) {
      if (Date.now() - began > limitMs) assert.fail(`${what} did not happen within ${limitMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return Date.now() - began;
  };

  it('tags a newly ingested process within a second of the commit, counts it once and raises one alert', async () => {
    const id = await watchlist('Shells', 'process_name:cmd.exe');
    await test.container.detectionMatcher.idle();
    await upload(100, T0);
    const lag = await until('the tag', async () => (await api('GET', `/api/v1/watchlist/${id}`)).total_hits === '1');
    assert.ok(lag < 1000, `tagged ${lag} ms after the upload was acknowledged`);
    const record = await api('GET', `/api/v1/watchlist/${id}`);
    assert.deepEqual([record.total_hits, record.total_tags, record.last_hit_count], ['1', '1', 1]);
    assert.notEqual(record.last_hit, null);
    assert.equal((await alerts(`watchlist_id:${id}`)).length, 1);

    const found = await search(`watchlist_${id}:*`);
    assert.equal(found.total_results, 1);
    const [document] = found.results;
    assert.equal(document.process_pid, 100);
    assert.deepEqual(document.watchlists.map((w: { wid: string }) => w.wid), [String(id)]);
    assert.equal(document.watchlists[0].segments_hit.length, 1);
    assert.equal((await search(`-watchlist_${id}:*`)).total_results, 0);

    const summary = await api('GET', `/api/v1/process/${document.id}/0`);
    assert.deepEqual(summary.process.watchlists, document.watchlists, 'the summary shows the same tags as the search');
    assert.deepEqual((await api('GET', `/api/v2/process/${document.id}/0`)).watchlists, document.watchlists);
    assert.deepEqual((await api('GET', `/api/v3/process/${document.id}/0/event`)).process.watchlists, document.watchlists);
  });

  it('runs a new watchlist over the data already stored, and the live path never counts those documents again', async () => {
    await upload(200, T0 + 1000);
    const id = await watchlist('Example talkers', 'domain:example.com');
    await until('the catch-up', async () => (await api('GET', `/api/v1/watchlist/${id}`)).total_hits === '2');
    await upload(300, T0 + 2000);
    await until('the live tag', async () => (await api('GET', `/api/v1/watchlist/${id}`)).total_hits === '3');
    await test.container.detectionMatcher.idle();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const record = await api('GET', `/api/v1/watchlist/${id}`);
    assert.deepEqual([record.total_hits, record.total_tags], ['3', '3']);
    assert.equal((await alerts(`watchlist_id:${id}`)).length, 3);
  });

  it('matches feed IOCs against existing and incoming data, makes the feed fields searchable, and stops alerting on an ignored report', async () => {
    const url = writeFeedFile(dir, 'intel.json', cbfeed('intel', [
      { id: 'bad-cmd', title: 'Bad cmd.exe', score: 80, iocs: { md5: [CMD_MD5.toUpperCase()] } },
      { id: 'bad-host', title: 'Bad domain', score: 40, iocs: { dns: ['example.com'], ipv4: ['93.184.216.34'] } },
    ]));
    const feed = await api('POST', '/api/v1/feed', { feed_url: url });
    await api('POST', `/api/v1/feed/${feed.id}/action`, { action_type: 3 });
    await until('the feed sweep', async () => (await search('alliance_score_intel:*')).total_results === 3);
    await test.container.detectionMatcher.idle();
    const raised = await alerts('feed_name:intel');
    const byReport = (list: { watchlist_id: string }[], report: string) => list.filter((a) => a.watchlist_id === report);
    assert.equal(byReport(raised, 'bad-host').length, 3, 'one per process, whichever of its IOCs hit first');
    const md5Alerts = raised.filter((a: { ioc_type: string }) => a.ioc_type === 'md5');
    assert.equal(md5Alerts.length, 3, 'one per process');
    assert.deepEqual([md5Alerts[0].report_score, md5Alerts[0].ioc_value, md5Alerts[0].feed_name], [80, CMD_MD5, 'intel']);
    const [document] = (await search('alliance_score_intel:[80 TO 100]')).results;
    assert.deepEqual([document.alliance_score_intel, [...document.alliance_data_intel].sort()], [80, ['bad-cmd', 'bad-host']]);
    const summary = await api('GET', `/api/v1/process/${document.id}/0`);
    assert.deepEqual([summary.process.alliance_score_intel, [...summary.process.alliance_data_intel].sort()], [80, ['bad-cmd', 'bad-host']]);
    assert.equal((await search('alliance_data_intel:bad-host')).total_results, 3);

    await api('POST', '/api/v1/alerts', { query: 'watchlist_id:bad-host', set_ignored: true, requested_status: 'False Positive' });
    await upload(400, T0 + 3000);
    await until('the live feed tag', async () => (await search('alliance_score_intel:*')).total_results === 4);
    await test.container.detectionMatcher.idle();
    const later = await alerts('feed_name:intel');
    assert.equal(byReport(later, 'bad-cmd').length, 4, 'the md5 report alerts on the new process');
    assert.equal(byReport(later, 'bad-host').length, 3, 'the ignored report tags it without alerting');
  });
});

describe('detection matcher across a restart', () => {
  it('catches up on what arrived while it was behind and counts nothing twice', async () => {
    let test = await startTestApp({ detectionCoalesceMs: 50 });
    const dataDir = test.config.dataDir;
    try {
      const sensor = await registerSensor(test);
      const headers = as(test.adminToken);
      const { id } = (await test.app.inject({
        method: 'POST', url: '/api/v1/watchlist', headers, payload: { name: 'Shells', search_query: 'q=process_name%3Acmd.exe' },
      })).json();
      assert.equal((await uploadEvents(test, sensor, 1, processEvents(10, T0))).statusCode, 200);
      await test.container.detectionMatcher.idle();
      await new Promise((resolve) => setTimeout(resolve, 150));
      await test.container.detectionMatcher.idle();
      await test.app.close();
      await test.container.close();

      const container = await createContainer(test.config);
      const app = await buildApp(container);
      test = { ...test, app, container };
      assert.equal((await uploadEvents(test, sensor, 2, processEvents(20, T0 + 10))).statusCode, 200);
      await new Promise((resolve) => setTimeout(resolve, 150));
      await container.detectionMatcher.idle();
      const record = (await app.inject({ url: `/api/v1/watchlist/${id}`, headers })).json();
      assert.deepEqual([record.total_hits, record.total_tags], ['2', '2']);
    } finally {
      await test.app.close();
      await test.container.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
