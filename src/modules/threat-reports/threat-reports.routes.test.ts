/** Threat reports over HTTP (reference admin §4.4, §4.5), as cbapi and published scripts call them. */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';
import { cbfeed, writeFeedFile } from '../../../test/support/feeds.js';
import { tempDir } from '../../../test/support/temp.js';

const URL = '/api/v1/threat_report';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

describe('threat reports API', () => {
  let test: TestApp;
  let dir: string;
  let feedId: number;
  before(async () => {
    test = await startTestApp();
    dir = tempDir('vigil-reports-');
    const url = writeFeedFile(dir, 'intel.json', cbfeed('intel', [
      { id: 'r-1', title: 'Mimikatz credential theft', score: 90, tags: ['credentials'], iocs: { md5: ['a'.repeat(32)] } },
      { id: 'r-2', title: 'Test report one', score: 20, iocs: { dns: ['test.example'] } },
      { id: 'r-3', title: 'Test report two', score: 30, iocs: { ipv4: ['10.0.0.1'] } },
    ]));
    feedId = (await test.app.inject({ method: 'POST', url: '/api/v1/feed', headers: as(test.adminToken), payload: { feed_url: url } })).json().id;
  });
  after(async () => {
    await test.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const admin = () => as(test.adminToken);
  const search = async (query: string) => {
    const response = await test.app.inject({ url: `${URL}?${query}`, headers: admin() });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };

  it('searches with q as cbapi sends it, answering the search envelope with report documents', async () => {
    const found = await search('cb.urlver=1&facet=false&q=title%3Amimikatz&rows=100&start=0');
    assert.deepEqual(Object.keys(found).sort(), ['elapsed', 'facets', 'highlights', 'results', 'start', 'terms', 'total_results']);
    assert.deepEqual([found.total_results, found.start, found.terms, found.facets], [1, 0, ['title:mimikatz'], {}]);
    const [report] = found.results;
    assert.match(report.create_time, ISO);
    assert.match(report.update_time, ISO);
    assert.deepEqual({ ...report, create_time: undefined, update_time: undefined }, {
      id: 'r-1', feed_id: feedId, feed_name: 'intel', feed_category: null, title: 'Mimikatz credential theft', description: '',
      link: 'https://intel.example/r-1', score: 90, severity_score: 90, timestamp: 1_700_000_000, is_ignored: false, is_deleted: false,
      tags: ['credentials'], iocs: { md5: ['a'.repeat(32)] }, create_time: undefined, update_time: undefined,
    });
    const single = await test.app.inject({ url: `/api/v1/feed/${feedId}/report/r-1`, headers: admin() });
    assert.deepEqual(single.json(), report);
  });

  it('filters with cb.fq, sorts, pages and facets as the published scripts ask', async () => {
    const page = await search('cb.urlver=1&cb.fq.feed_name=intel&cb.fq.is_deleted=false&sort=severity_score%20desc&rows=2&start=1&facet=true&facet.field=feed_name');
    assert.equal(page.total_results, 3);
    assert.deepEqual(page.results.map((r: { id: string }) => r.id), ['r-3', 'r-2']);
    assert.deepEqual(page.facets, { feed_name: [{ name: 'intel', value: 3, percent: 100, ratio: 100 }] });
    assert.deepEqual((await search('q=title%3Atest&sort=score%20asc')).results.map((r: { id: string }) => r.id), ['r-2', 'r-3']);
    assert.deepEqual((await search('q=domain%3Atest.example')).results.map((r: { id: string }) => r.id), ['r-2']);
  });

  it('answers 400 query_malformed_syntax for a query, sort or facet it cannot read, and 400 for bad paging', async () => {
    for (const query of ['q=title%3A(unclosed', 'q=process_name%3Ax', 'sort=cmdline%20desc', 'facet=true&facet.field=title']) {
      const response = await test.app.inject({ url: `${URL}?${query}`, headers: admin() });
      assert.equal(response.statusCode, 400, query);
      assert.equal(response.json().reason, 'query_malformed_syntax', query);
    }
    for (const query of ['rows=-1', 'rows=1000000', 'start=x', 'sort=score%20sideways']) {
      assert.equal((await test.app.inject({ url: `${URL}?${query}`, headers: admin() })).statusCode, 400, query);
    }
  });

  it('ignores one report by id as cbapi\'s ThreatReport.save does, answering the report', async () => {
    const response = await test.app.inject({
      method: 'POST', url: URL, headers: admin(), payload: { ids: { [String(feedId)]: ['r-1'] }, updates: { is_ignored: true } },
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual([response.json().id, response.json().feed_id, response.json().is_ignored], ['r-1', feedId, true]);
    const missing = await test.app.inject({
      method: 'POST', url: URL, headers: admin(), payload: { ids: { [String(feedId)]: ['nope'] }, updates: { is_ignored: true } },
    });
    assert.equal(missing.statusCode, 404);
  });

  it('answers 400 to ids keyed by something other than a feed id, whatever the values', async () => {
    for (const payload of [
      '{"ids": {"": -1e308}, "updates": {"is_ignored": true}}',
      '{"ids": {"feed": ["r-1"]}, "updates": {"is_ignored": true}}',
      '{"ids": {"99999999999999999999": ["r-1"]}, "updates": {"is_ignored": true}}',
    ]) {
      const response = await test.app.inject({ method: 'POST', url: URL, headers: { ...admin(), 'content-type': 'application/json' }, payload });
      assert.equal(response.statusCode, 400, `${payload}: ${response.body}`);
      assert.equal(response.json().reason, 'invalid_request');
    }
  });

  it('ignores and un-ignores by query as ThreatReportQuery.set_ignored does', async () => {
    const update = (query: string, ignored: boolean) => test.app.inject({
      method: 'POST', url: URL, headers: admin(), payload: { query, updates: { is_ignored: ignored } },
    });
    assert.deepEqual((await update('cb.urlver=1&q=title%3Atest', true)).json(), { result: 'success' });
    assert.deepEqual((await search('q=is_ignored%3Atrue&sort=score%20asc')).results.map((r: { id: string }) => r.id), ['r-2', 'r-3', 'r-1']);
    await update(`cb.urlver=1&q=feed_id%3A${feedId}`, false);
    assert.equal((await search('q=is_ignored%3Atrue')).total_results, 0);
    assert.equal((await update('cb.urlver=1&q=title%3A%28', true)).json().reason, 'query_malformed_syntax');
    const neither = await test.app.inject({ method: 'POST', url: URL, headers: admin(), payload: { updates: { is_ignored: true } } });
    assert.equal(neither.statusCode, 400);
  });

  it('lets any user search and only global admins change reports', async () => {
    const token = await createUser(test, { username: 'report-reader' });
    assert.equal((await test.app.inject({ url: URL, headers: as(token) })).statusCode, 200);
    const change = await test.app.inject({ method: 'POST', url: URL, headers: as(token), payload: { query: 'q=', updates: { is_ignored: true } } });
    assert.equal(change.statusCode, 403);
  });
});
