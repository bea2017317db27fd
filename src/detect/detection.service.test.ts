/**
 * The detection sink through its service, on processes and binaries stored by the real sensor
 * protocol: what a watchlist run or a feed hit does to tags, counters and alerts, as the API
 * shows them afterwards.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { as, startTestApp, type TestApp } from '../../test/support/app.js';
import { cbfeed, writeFeedFile } from '../../test/support/feeds.js';
import { storedSegments, type StoredSegment } from '../../test/support/processes.js';
import { binaryMetadata, processEvents, registerSensor, uploadBinary, uploadEvents } from '../../test/support/sensors.js';
import { tempDir } from '../../test/support/temp.js';
import { processId, uniqueId } from '../domain/process-id.js';

const RECORD_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}[+-]\d{2}:\d{2}$/;
const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const RAN = Date.parse('2026-11-21T08:30:00.123Z');
const CMD_MD5 = 'ad7b9c14083b52bc532fba5948342b98';

describe('detection sink', () => {
  let test: TestApp;
  let dir: string;
  let sensorId: number;
  let first: StoredSegment;
  let second: StoredSegment;
  const binary = Buffer.from('MZ detection test binary');
  before(async () => {
    // The matcher would find these hits itself; here the sink is driven by hand.
    test = await startTestApp({ detectionMatcherEnabled: false });
    dir = tempDir('vigil-detect-');
    const sensor = await registerSensor(test, { computer_name: 'WIN-DETECT-01' });
    sensorId = sensor.id;
    const uploaded = await uploadEvents(test, sensor, 1, [...processEvents(100, T0), ...processEvents(200, T0 + 1000)]);
    assert.equal(uploaded.statusCode, 200, uploaded.body);
    [first, second] = [(await storedSegments(test, sensorId, 100))[0]!, (await storedSegments(test, sensorId, 200))[0]!];
    const stored = await uploadBinary(test, sensor, binaryMetadata(binary, { observed_filename: 'C:\\Tools\\Dropper.exe' }), binary);
    assert.equal(stored.statusCode, 200, stored.body);
  });
  after(async () => {
    await test.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const admin = () => as(test.adminToken);
  const detection = () => test.container.services.detection;
  const api = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) => {
    const response = await test.app.inject({ method, url, headers: admin(), ...(payload ? { payload } : {}) });
    assert.equal(response.statusCode, 200, `${method} ${url}: ${response.body}`);
    return response.json();
  };
  const watchlist = async (body: object, alerting = true): Promise<number> => {
    const { id } = await api('POST', '/api/v1/watchlist', body);
    if (alerting) await api('PUT', `/api/v1/watchlist/${id}/action_type/3`, { enabled: true });
    return id;
  };
  const alerts = async (q: string) => (await api('GET', `/api/v2/alert?q=${encodeURIComponent(q)}&rows=100&sort=created_time%20asc`)).results;

  it('tags what a watchlist run found, counts it, and raises one alert per process with the process as it was', async () => {
    const id = await watchlist({ name: 'Shells', search_query: 'cb.urlver=1&q=process_name%3Acmd.exe', index_type: 'events' });
    const outcome = await detection().watchlistRan({
      watchlistId: id, ranAtMs: RAN, segments: [first.segmentRow, second.segmentRow], cursor: 'through:2',
      highlights: new Map([[String(first.segmentRow), ['PREPREPREcmd.exePOSTPOSTPOST']]]),
    });
    assert.deepEqual([outcome.hits, outcome.alerts.length], [2, 2]);
    const record = await api('GET', `/api/v1/watchlist/${id}`);
    assert.match(record.last_hit, RECORD_TIME);
    assert.equal(Date.parse(record.last_hit.replace(' ', 'T')), RAN);
    assert.deepEqual([record.total_hits, record.total_tags, record.last_hit_count, record.search_timestamp], ['2', '2', 2, '2026-11-21T08:30:00.123000Z']);

    const raised = await alerts(`watchlist_id:${id}`);
    assert.deepEqual(raised.map((a: { unique_id: string }) => a.unique_id).sort(), [...outcome.alerts].sort());
    const alert = raised.find((a: { process_id: string }) => a.process_id === processId({ sensorId, pid: 100, startMs: T0 }));
    assert.deepEqual(alert, {
      unique_id: alert.unique_id, alert_type: 'watchlist.hit.query.process', status: 'Unresolved', created_time: '2026-11-21T08:30:00.123Z',
      watchlist_id: String(id), watchlist_name: 'Shells', feed_id: -1, feed_name: 'My Watchlists', report_score: 75, feed_rating: 3,
      sensor_criticality: 3, ioc_confidence: 0.5, alert_severity: 50.625, ioc_type: 'query',
      ioc_value: 'cb.urlver=1&q=process_name%3Acmd.exe', ioc_attr: '{"highlights":["PREPREPREcmd.exePOSTPOSTPOST"]}',
      md5: CMD_MD5, sha256: 'a'.repeat(64), process_id: processId({ sensorId, pid: 100, startMs: T0 }),
      process_unique_id: uniqueId(processId({ sensorId, pid: 100, startMs: T0 }), first.segmentId), segment_id: first.segmentId,
      process_name: 'cmd.exe', process_path: 'c:\\windows\\system32\\cmd.exe', username: 'CORP\\alice', hostname: 'win-detect-01',
      group: 'default group', sensor_id: sensorId, os_type: 'windows', comms_ip: '10.1.2.3', interface_ip: '10.1.2.3',
      modload_count: 1, filemod_count: 1, regmod_count: 1, netconn_count: 1, childproc_count: 1, crossproc_count: 1, total_hosts: 1,
    });
    const current = (await test.container.services.watchlists.enabledWatchlists()).find((w) => w.id === id);
    assert.equal(current?.matchCursor, 'through:2');
  });

  it('counts a document another run found at the same moment once: no hit, tag or alert again; an empty run only moves search_timestamp', async () => {
    const id = await watchlist({ name: 'Again', search_query: 'q=process_name%3Acmd.exe' });
    await detection().watchlistRan({ watchlistId: id, ranAtMs: RAN, segments: [first.segmentRow] });
    // Two servers' live runs that read the same new segment both report it.
    const again = await detection().watchlistRan({ watchlistId: id, ranAtMs: RAN + 60_000, segments: [first.segmentRow, second.segmentRow, 987654] });
    assert.deepEqual([again.hits, again.alerts.length], [1, 1]);
    await detection().watchlistRan({ watchlistId: id, ranAtMs: RAN + 120_000, segments: [] });
    const record = await api('GET', `/api/v1/watchlist/${id}`);
    assert.deepEqual([record.total_hits, record.total_tags, record.last_hit_count, record.search_timestamp],
      ['2', '2', 1, '2026-11-21T08:32:00.123000Z']);
    assert.equal(Date.parse(record.last_hit.replace(' ', 'T')), RAN + 60_000);
    assert.equal((await alerts(`watchlist_id:${id}`)).length, 2);
  });

  it('raises no alert without the alert action, and does nothing for a disabled watchlist', async () => {
    const quiet = await watchlist({ name: 'Quiet', search_query: 'q=process_name%3Acmd.exe' }, false);
    const quietRun = await detection().watchlistRan({ watchlistId: quiet, ranAtMs: RAN, segments: [first.segmentRow] });
    assert.deepEqual([quietRun.hits, quietRun.alerts.length], [1, 0]);
    const off = await watchlist({ name: 'Off', search_query: 'q=process_name%3Acmd.exe', enabled: false });
    assert.deepEqual(await detection().watchlistRan({ watchlistId: off, ranAtMs: RAN, segments: [first.segmentRow] }), { hits: 0, alerts: [] });
    assert.equal((await api('GET', `/api/v1/watchlist/${off}`)).total_hits, '0');
  });

  it('tags binaries for a modules watchlist and raises a binary alert naming the file', async () => {
    const md5 = binaryMetadata(binary, { observed_filename: 'x' }).md5.toLowerCase();
    const id = await watchlist({ name: 'Droppers', search_query: 'cb.urlver=1&q=observed_filename%3Adropper.exe', index_type: 'modules' });
    const outcome = await detection().watchlistRan({ watchlistId: id, ranAtMs: RAN, binaries: [md5.toUpperCase(), 'f'.repeat(32)] });
    assert.deepEqual([outcome.hits, outcome.alerts.length], [1, 1]);
    const [alert] = await alerts(`watchlist_id:${id}`);
    assert.deepEqual([alert.alert_type, alert.md5, alert.observed_filename, alert.total_hosts, alert.process_id],
      ['watchlist.hit.query.binary', md5, 'c:\\tools\\dropper.exe', 1, undefined]);
    const tags = await detection().binaryTags([md5]);
    assert.deepEqual(tags.get(md5)?.watchlists, [{ watchlistId: id, hitMs: RAN, segmentIds: [] }]);
  });

  it('shows a binary\'s watchlist and feed tags on its summary and its search documents', async () => {
    const md5 = binaryMetadata(binary, { observed_filename: 'x' }).md5.toLowerCase();
    const id = await watchlist({ name: 'Tools', search_query: 'cb.urlver=1&q=observed_filename%3Adropper.exe', index_type: 'modules' }, false);
    await detection().watchlistRan({ watchlistId: id, ranAtMs: RAN, binaries: [md5] });
    const url = writeFeedFile(dir, 'binaries.json', cbfeed('binintel', [
      { id: 'dropper-md5', title: 'Dropper', score: 70, link: 'https://intel.example/dropper', iocs: { md5: [md5] } },
    ]));
    const feed = await api('POST', '/api/v1/feed', { feed_url: url });
    await api('POST', `/api/v1/feed/${feed.id}/action`, { action_type: 3 });
    const [report] = await detection().iocReports('md5', [md5]);
    await detection().feedHits([{ reportRow: report!.reportRow, iocType: 'md5', iocValue: md5, atMs: RAN, iocAttr: {}, md5 }]);

    const summary = await api('GET', `/api/v1/binary/${md5.toUpperCase()}/summary`);
    const [found] = (await api('GET', `/api/v1/binary?q=md5%3A${md5}`)).results;
    for (const document of [summary, found]) {
      const tag = document.watchlists.find((t: { wid: string }) => t.wid === String(id));
      assert.deepEqual(tag, { wid: String(id), value: new Date(RAN).toISOString() }, 'binary tags carry no segments_hit');
      assert.equal(document.alliance_score_binintel, 70);
      assert.deepEqual(document.alliance_data_binintel, ['dropper-md5']);
      assert.equal(document.alliance_link_binintel, 'https://intel.example/dropper');
    }
  });

  it('tags and alerts on feed IOC hits with the report\'s fields, until the report is ignored', async () => {
    const url = writeFeedFile(dir, 'hashes.json', cbfeed('hashes', [
      { id: 'cmd-md5', title: 'Suspicious cmd.exe', score: 90, description: 'A known-bad build', iocs: { md5: [CMD_MD5.toUpperCase()] } },
      { id: 'goodness', title: 'Known good', score: -50, iocs: { md5: ['b'.repeat(32)] } },
    ]));
    const feed = await api('POST', '/api/v1/feed', { feed_url: url });
    await api('POST', `/api/v1/feed/${feed.id}/action`, { action_type: 3 });
    const [match, ...others] = await detection().iocReports('md5', [CMD_MD5, 'b'.repeat(32), 'c'.repeat(32)]);
    assert.equal(others.length, 1);
    assert.deepEqual([match?.feedId, match?.value], [feed.id, CMD_MD5]);
    const hit = { reportRow: match!.reportRow, iocType: 'md5' as const, iocValue: CMD_MD5, atMs: RAN, iocAttr: { hit_field_md5: CMD_MD5 } };
    const outcome = await detection().feedHits([{ ...hit, segment: first.segmentRow }]);
    assert.deepEqual([outcome.hits, outcome.alerts.length], [1, 1]);
    const [alert] = await alerts(`feed_name:hashes`);
    assert.deepEqual(
      [alert.alert_type, alert.watchlist_id, alert.watchlist_name, alert.feed_id, alert.report_score, alert.ioc_type, alert.ioc_value,
        alert.ioc_attr, alert.alert_severity, alert.report_ignored, alert.description, alert.link],
      ['watchlist.hit.ingress.process', 'cmd-md5', 'Suspicious cmd.exe', feed.id, 90, 'md5', CMD_MD5, `{"hit_field_md5":"${CMD_MD5}"}`,
        60.75, false, 'A known-bad build', 'https://intel.example/cmd-md5'],
    );
    const tags = await detection().segmentTags([first.segmentRow]);
    assert.deepEqual(tags.get(first.segmentRow)?.feeds, [
      { feedName: 'hashes', score: 90, reportIds: ['cmd-md5'], link: 'https://intel.example/cmd-md5', updatedMs: RAN },
    ]);

    await api('POST', '/api/v1/alerts', { alert_ids: [alert.unique_id], set_ignored: true, requested_status: 'False Positive' });
    const ignored = await detection().feedHits([{ ...hit, segment: second.segmentRow }]);
    assert.deepEqual([ignored.hits, ignored.alerts.length], [1, 0], 'an ignored report still tags, and raises nothing');
    const goodness = (await detection().iocReports('md5', ['b'.repeat(32)]))[0]!;
    const good = await detection().feedHits([{ ...hit, reportRow: goodness.reportRow, iocValue: 'b'.repeat(32), segment: first.segmentRow }]);
    assert.deepEqual([good.hits, good.alerts.length], [1, 0], 'a negative score is goodness, not an alert');

    await api('PUT', `/api/v1/feed/${feed.id}`, { enabled: false });
    assert.deepEqual(await detection().iocReports('md5', [CMD_MD5]), []);
    assert.deepEqual((await detection().feedHits([{ ...hit, segment: first.segmentRow }])).hits, 0);
  });

  it('gives the matcher the query IOCs of enabled feeds with their resume points', async () => {
    const query = { index_type: 'events', search_query: 'cb.urlver=1&q=process_name%3Anotepad.exe' };
    const url = writeFeedFile(dir, 'queries.json', cbfeed('queries', [{ id: 'q1', title: 'Notepad', iocs: { query: [query] } }]));
    const feed = await api('POST', '/api/v1/feed', { feed_url: url });
    const mine = (await detection().queryReports()).filter((r) => r.feedId === feed.id);
    assert.deepEqual(mine.map((r) => [r.queries, r.cursor]), [[[query], null]]);
    await detection().reportRan(mine[0]!.reportRow, 'through:9');
    assert.equal((await detection().queryReports()).find((r) => r.feedId === feed.id)?.cursor, 'through:9');
  });
});

describe('detection sink on a process split into segments', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp({ segmentMaxEvents: 4, detectionMatcherEnabled: false });
  });
  after(() => test.close());

  it('alerts once per process, however many of its segments a watchlist tags, and tags the document with every segment hit', async () => {
    const sensor = await registerSensor(test);
    assert.equal((await uploadEvents(test, sensor, 1, processEvents(300, T0))).statusCode, 200);
    const segments = await storedSegments(test, sensor.id, 300);
    assert.equal(segments.length, 2);
    const { id } = (await test.app.inject({
      method: 'POST', url: '/api/v1/watchlist', headers: as(test.adminToken), payload: { name: 'Split', search_query: 'q=process_name%3Acmd.exe' },
    })).json();
    await test.app.inject({ method: 'PUT', url: `/api/v1/watchlist/${id}/action_type/3`, headers: as(test.adminToken), payload: { enabled: true } });
    const detection = test.container.services.detection;
    const both = await detection.watchlistRan({ watchlistId: id, ranAtMs: RAN, segments: segments.map((s) => s.segmentRow) });
    assert.deepEqual([both.hits, both.alerts.length], [2, 1]);
    const tags = await detection.segmentTags([segments[0]!.segmentRow]);
    assert.deepEqual(tags.get(segments[0]!.segmentRow)?.watchlists, [{ watchlistId: id, hitMs: RAN, segmentIds: segments.map((s) => s.segmentId) }]);
  });
});
