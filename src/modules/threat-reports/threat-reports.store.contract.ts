/** The contract of ThreatReportsStore, run against every dialect (threat-reports.store.test.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { cbfeed, type TestReport } from '../../../test/support/feeds.js';
import { testSecretBox } from '../../../test/support/secrets.js';
import type { SqlDatabase } from '../../db/database.js';
import { analyzeParams, type Predicate } from '../../query/index.js';
import { parseFeed } from '../feeds/cbfeed.js';
import { SqlFeedsStore } from '../feeds/feeds.store.js';
import { SQLITE_THREAT_REPORT_QUERY } from './threat-report-query.sqlite.js';
import { SqlThreatReportsStore } from './threat-reports.store.js';

const NOW = Date.parse('2026-11-20T10:00:00Z');
const SETTINGS = {
  feedUrl: 'file:///feed.json', enabled: true, useProxy: null, validateServerCert: null, username: null, password: null,
  sslClientCrt: null, sslClientKey: null, localRating: null, order: null,
};
const where = (q: string): Predicate => analyzeParams({ q }, { index: 'threat_report', now: NOW }).predicate;

const TOR: TestReport[] = [
  { id: 'tor-1', title: 'TOR exit node 100.2.142.8', score: 50, tags: ['tor', 'anonymizer'], iocs: { ipv4: ['100.2.142.8'] } },
  { id: 'tor-2', title: 'TOR exit node 10.9.8.7', score: 40, tags: ['tor'], iocs: { ipv4: ['10.9.8.7'], ipv6: ['2001:db8::7'] } },
];
const MALWARE: TestReport[] = [
  {
    id: 'mw-1', title: 'Emotet loader', description: 'Drops a DLL via PowerShell', score: 90, tags: ['emotet'],
    iocs: { md5: ['a'.repeat(32)], dns: ['update.evil.example'] },
  },
  { id: 'mw-2', title: 'Cobalt Strike beacon', score: 100, iocs: { dns: ['evil.example.net'], sha256: ['b'.repeat(64)] } },
  { id: 'mw-3', title: 'Benign updater', score: -20, iocs: { query: { index_type: 'events', search_query: 'q=process_name%3Aupdater.exe' } } },
];

async function seeded(fresh: () => Promise<SqlDatabase>) {
  const db = await fresh();
  const feeds = new SqlFeedsStore(db, testSecretBox());
  const tor = (await feeds.create(SETTINGS, parseFeed(JSON.stringify(cbfeed('tor', TOR, { category: 'Open Source' })), NOW), 1000)).feed;
  const malware = (await feeds.create({ ...SETTINGS, feedUrl: 'file:///m.json' },
    parseFeed(JSON.stringify(cbfeed('malware', MALWARE, { category: 'Partner' })), NOW), 2000)).feed;
  return { db, store: new SqlThreatReportsStore(db, SQLITE_THREAT_REPORT_QUERY), tor, malware };
}

export function threatReportsStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('reads one report with its feed', async () => {
    const { store, malware } = await seeded(fresh);
    const report = await store.get(malware.id, 'mw-1');
    assert.deepEqual(report, {
      row: report!.row, feedId: malware.id, feedName: 'malware', feedCategory: 'Partner', reportId: 'mw-1', title: 'Emotet loader',
      description: 'Drops a DLL via PowerShell', link: 'https://intel.example/mw-1', score: 90, timestampS: 1_700_000_000,
      tags: ['emotet'], iocs: MALWARE[0]!.iocs, isIgnored: false, isDeleted: false, createdMs: 2000, updatedMs: 2000,
    });
    assert.equal(await store.get(malware.id, 'tor-1'), undefined);
  });

  it('searches each kind of field', async () => {
    const { store, tor } = await seeded(fresh);
    const ids = async (q: string) => (await store.search(where(q), [{ field: 'report_id', descending: false }], 0, 100)).reports.map((r) => r.reportId);
    const cases: [string, string[]][] = [
      ['', ['mw-1', 'mw-2', 'mw-3', 'tor-1', 'tor-2']],
      ['title:emotet', ['mw-1']],
      ['title:"exit node"', ['tor-1', 'tor-2']],
      ['title:"node exit"', []],
      ['title:cobalt*', ['mw-2']],
      ['title:*trike', ['mw-2']],
      ['description:powershell', ['mw-1']],
      ['tags:anonymizer', ['tor-1']],
      ['emotet', ['mw-1']],
      [`md5:${'A'.repeat(32)}`, ['mw-1']],
      [`sha256:${'b'.repeat(64)}`, ['mw-2']],
      ['domain:evil.example', ['mw-1']],
      ['domain:.net', ['mw-2']],
      ['domain:evil.', ['mw-2']],
      ['domain:example', ['mw-1', 'mw-2']],
      ['ipaddr:100.2.0.0/16', ['tor-1']],
      ['ipaddr:[10.0.0.0 TO 10.255.255.255]', ['tor-2']],
      ['ipv6addr:2001:db8::/32', ['tor-2']],
      ['feed_name:TOR', ['tor-1', 'tor-2']],
      [`feed_id:${tor.id}`, ['tor-1', 'tor-2']],
      ['feed_category:partner', ['mw-1', 'mw-2', 'mw-3']],
      ['report_id:MW-2', ['mw-2']],
      ['score:[90 TO *]', ['mw-1', 'mw-2']],
      ['severity_score:[* TO 0]', ['mw-3']],
      ['is_ignored:false -feed_name:tor', ['mw-1', 'mw-2', 'mw-3']],
      ['is_deleted:true', []],
      ['create_time:[2026-01-01 TO *]', []],
      ['-tags:tor', ['mw-1', 'mw-2', 'mw-3']],
      ['title:beacon OR title:loader', ['mw-1', 'mw-2']],
    ];
    for (const [q, expected] of cases) assert.deepEqual(await ids(q), expected, q);
  });

  it('sorts with a tiebreaker, pages, and counts every match', async () => {
    const { store } = await seeded(fresh);
    const page = await store.search(where(''), [{ field: 'score', descending: true }], 1, 2);
    assert.equal(page.total, 5);
    assert.deepEqual(page.reports.map((r) => r.reportId), ['mw-1', 'tor-1']);
    const byFeed = await store.search(where(''), [{ field: 'feed_name', descending: false }, { field: 'title', descending: false }], 0, 5);
    assert.deepEqual(byFeed.reports.map((r) => r.reportId), ['mw-3', 'mw-2', 'mw-1', 'tor-2', 'tor-1']);
    assert.deepEqual((await store.search(where('tor'), [{ field: 'score', descending: true }], 0, 0)), { total: 2, reports: [] });
  });

  it('counts facet values among the matches', async () => {
    const { store, malware } = await seeded(fresh);
    assert.deepEqual(await store.facet(where(''), 'feed_name', 10), [{ value: 'malware', count: 3 }, { value: 'tor', count: 2 }]);
    assert.deepEqual(await store.facet(where('score:[50 TO *]'), 'feed_id', 1), [{ value: String(malware.id), count: 2 }]);
    assert.deepEqual(await store.facet(where(''), 'is_ignored', 10), [{ value: 'false', count: 5 }]);
  });

  it('sets is_ignored by query and by ids', async () => {
    const { store, tor, malware } = await seeded(fresh);
    assert.equal(await store.setIgnored(where('feed_name:tor'), true), 2);
    assert.deepEqual((await store.search(where('is_ignored:true'), [{ field: 'report_id', descending: false }], 0, 10)).reports.map((r) => r.reportId),
      ['tor-1', 'tor-2']);
    assert.equal(await store.setIgnoredByIds(new Map([[tor.id, ['tor-1', 'nope']], [malware.id, ['mw-3']]]), false), 2);
    const ignored = await store.search(where('is_ignored:true'), [{ field: 'report_id', descending: false }], 0, 10);
    assert.deepEqual(ignored.reports.map((r) => r.reportId), ['tor-2']);
  });
}
