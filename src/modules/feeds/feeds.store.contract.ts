/** The contract of FeedsStore and of report synchronization, run against every dialect (feeds.store.test.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { cbfeed, type TestReport } from '../../../test/support/feeds.js';
import { testSecretBox } from '../../../test/support/secrets.js';
import type { SqlDatabase } from '../../db/database.js';
import { ConflictError } from '../../domain/errors.js';
import { SQLITE_THREAT_REPORT_QUERY } from '../threat-reports/threat-report-query.sqlite.js';
import { SqlThreatReportsStore } from '../threat-reports/threat-reports.store.js';
import { parseFeed } from './cbfeed.js';
import { SqlFeedsStore, type FeedSettings } from './feeds.store.js';

const SETTINGS: FeedSettings = {
  feedUrl: 'http://127.0.0.1/feed.json', enabled: true, useProxy: null, validateServerCert: null, username: null, password: null,
  sslClientCrt: null, sslClientKey: null, localRating: null, order: null,
};
const download = (name: string, reports: TestReport[]) => parseFeed(JSON.stringify(cbfeed(name, reports)), 0);
const md5 = (c: string) => c.repeat(32);

export function feedsStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('adds a feed with its reports and their IOC values, and refuses a second feed of that name', async () => {
    const db = await fresh();
    const feeds = new SqlFeedsStore(db, testSecretBox());
    const { feed, counts } = await feeds.create(SETTINGS, download('intel', [
      { id: 'r1', title: 'One', iocs: { md5: [md5('a')], dns: ['x.example'] } },
      { id: 'r2', title: 'Two', iocs: { ipv4: ['10.1.2.3'] } },
    ]), 5000);
    assert.deepEqual(counts, { added: 2, updated: 0, deleted: 0 });
    assert.deepEqual([feed.info.name, feed.feedUrl, feed.manuallyAdded, feed.createdMs, feed.syncedMs], ['intel', SETTINGS.feedUrl, true, 5000, 5000]);
    assert.deepEqual(await feeds.get(feed.id), feed);
    const iocs = await db.all('SELECT ioc_type, value, address_hex FROM report_iocs ORDER BY ioc_type, value');
    assert.deepEqual(iocs, [
      { ioc_type: 'dns', value: 'x.example', address_hex: null },
      { ioc_type: 'ipv4', value: '10.1.2.3', address_hex: '0a010203' },
      { ioc_type: 'md5', value: md5('a'), address_hex: null },
    ]);
    await assert.rejects(feeds.create(SETTINGS, download('INTEL', []), 6000), ConflictError);
    assert.equal((await feeds.list()).length, 1);
  });

  it('changes settings, null clearing and undefined keeping', async () => {
    const feeds = new SqlFeedsStore(await fresh(), testSecretBox());
    const { feed } = await feeds.create({ ...SETTINGS, username: 'u', password: 'p' }, download('intel', []), 1);
    const changed = await feeds.update(feed.id, { enabled: false, password: null, localRating: 4 });
    assert.deepEqual([changed?.enabled, changed?.username, changed?.password, changed?.localRating], [false, 'u', null, 4]);
    assert.equal(await feeds.update(feed.id + 1, { enabled: true }), undefined);
  });

  it('keeps the password and client key sealed, and hands them out opened', async () => {
    const db = await fresh();
    const feeds = new SqlFeedsStore(db, testSecretBox());
    const secrets = { password: 'feed-pass-1234', sslClientKey: '-----BEGIN PRIVATE KEY-----\nfeedkey' };
    const { feed } = await feeds.create({ ...SETTINGS, username: 'u', ...secrets }, download('intel', []), 1);
    assert.deepEqual([feed.password, feed.sslClientKey], [secrets.password, secrets.sslClientKey]);
    const changed = await feeds.update(feed.id, { password: 'feed-pass-5678' });
    assert.deepEqual([changed?.password, changed?.sslClientKey], ['feed-pass-5678', secrets.sslClientKey]);
    const stored = JSON.stringify(await db.all('SELECT * FROM feeds'));
    for (const plain of ['feed-pass', 'feedkey']) assert.ok(!stored.includes(plain), stored);
  });

  it('synchronizes incrementally by timestamp, and fully with deletions marked', async () => {
    const db = await fresh();
    const feeds = new SqlFeedsStore(db, testSecretBox());
    const reports = new SqlThreatReportsStore(db, SQLITE_THREAT_REPORT_QUERY);
    const { feed } = await feeds.create(SETTINGS, download('intel', [
      { id: 'same', title: 'Same', timestamp: 100, iocs: { md5: [md5('a')] } },
      { id: 'newer', title: 'Old title', timestamp: 100, iocs: { md5: [md5('b')] } },
      { id: 'gone', title: 'Gone', timestamp: 100, iocs: { md5: [md5('c')] } },
    ]), 1);
    await reports.setIgnoredByIds(new Map([[feed.id, ['newer']]]), true);
    const next = [
      { id: 'same', title: 'Same, edited in place', timestamp: 100, iocs: { md5: [md5('a')] } },
      { id: 'newer', title: 'New title', timestamp: 200, iocs: { md5: [md5('d')] } },
      { id: 'added', title: 'Added', timestamp: 200, iocs: { md5: [md5('e')] } },
    ];
    assert.deepEqual(await feeds.sync(feed.id, download('intel', next), false, 2), { added: 1, updated: 1, deleted: 0 });
    const title = async (id: string) => (await reports.get(feed.id, id))?.title;
    assert.deepEqual([await title('same'), await title('newer'), await title('added')], ['Same', 'New title', 'Added']);
    const newer = (await reports.get(feed.id, 'newer'))!;
    assert.deepEqual([newer.isIgnored, newer.updatedMs, newer.createdMs], [true, 2, 1], 'is_ignored survives a rewrite');
    assert.deepEqual((await db.all<{ value: string }>('SELECT value FROM report_iocs WHERE report_row = ?', [newer.row])).map((r) => r.value), [md5('d')]);
    assert.equal((await reports.get(feed.id, 'gone'))?.isDeleted, false);

    assert.deepEqual(await feeds.sync(feed.id, download('intel', next), true, 3), { added: 0, updated: 3, deleted: 1 });
    assert.equal(await title('same'), 'Same, edited in place');
    assert.equal((await reports.get(feed.id, 'gone'))?.isDeleted, true);
    await feeds.sync(feed.id, download('intel', [{ id: 'gone', title: 'Back', timestamp: 100, iocs: { md5: [md5('c')] } }]), false, 4);
    assert.deepEqual([(await reports.get(feed.id, 'gone'))?.isDeleted, await title('gone')], [false, 'Back']);
    assert.equal(await feeds.sync(feed.id + 1, download('intel', []), true, 5), undefined);
  });

  it('deletes a feed with its reports', async () => {
    const db = await fresh();
    const feeds = new SqlFeedsStore(db, testSecretBox());
    const { feed } = await feeds.create(SETTINGS, download('intel', [{ id: 'r', title: 'R', iocs: { md5: [md5('a')] } }]), 1);
    assert.equal(await feeds.delete(feed.id), true);
    assert.equal(await feeds.delete(feed.id), false);
    assert.deepEqual(await db.all('SELECT id FROM threat_reports'), []);
    assert.deepEqual(await db.all('SELECT value FROM report_iocs'), []);
  });
}
