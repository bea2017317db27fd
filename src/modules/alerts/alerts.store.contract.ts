/** The contract of AlertsStore, run against every dialect (alerts.store.test.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { cbfeed } from '../../../test/support/feeds.js';
import { testSecretBox } from '../../../test/support/secrets.js';
import type { SqlDatabase } from '../../db/database.js';
import { analyzeParams, type Predicate } from '../../query/index.js';
import { parseFeed } from '../feeds/cbfeed.js';
import { SqlFeedsStore } from '../feeds/feeds.store.js';
import { SQLITE_ALERT_QUERY } from './alert-query.sqlite.js';
import { insertAlert } from './alert-rows.js';
import { SqlAlertsStore, type NewAlert } from './alerts.store.js';

const NOW = Date.parse('2026-11-20T10:00:00Z');
const where = (q: string): Predicate => analyzeParams({ q }, { index: 'alert', now: NOW }).predicate;
const BY_TIME = [{ field: 'created_time', descending: false }];

/** A watchlist alert on a process, numbered `n` (its unique id ends in n); also used by alert-changes.threaded.test.ts. */
export function alert(n: number, overrides: Partial<NewAlert> = {}): NewAlert {
  return {
    uniqueId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, alertType: 'watchlist.hit.query.process', createdMs: NOW + n * 1000,
    watchlistId: '7', watchlistName: 'Shells', feedId: -1, feedName: 'My Watchlists', reportRow: null, reportScore: 75, feedRating: 3,
    sensorCriticality: 3, iocConfidence: 0.5, alertSeverity: 50.625, iocType: 'query', iocValue: 'q=process_name%3Acmd.exe', iocAttr: '{}',
    description: null, link: null, md5: 'a'.repeat(32), observedFilename: null, totalHosts: 1,
    process: {
      segmentRow: n, processId: '00000001-0000-0064-01dc-5a0b5c2e8000', segmentId: 1_700_000_000_000 + n, processName: 'cmd.exe',
      processPath: 'c:\\windows\\system32\\cmd.exe', processPathKey: 'c:\\windows\\system32\\cmd.exe', username: 'CORP\\alice', sha256: '',
      hostname: 'web-1', groupId: 1, groupName: 'default group', sensorId: 1, osType: 'windows', commsIp: '10.1.2.3', interfaceIp: '10.1.2.3',
      counts: { modload: 1, filemod: 2, regmod: 3, netconn: 4, childproc: 5, crossproc: 6 },
    },
    ...overrides,
  };
}

async function seeded(fresh: () => Promise<SqlDatabase>, alerts: NewAlert[]) {
  const db = await fresh();
  await db.transaction(async (tx) => {
    for (const a of alerts) await insertAlert(tx, a);
  });
  return { db, store: new SqlAlertsStore(db, SQLITE_ALERT_QUERY) };
}

export function alertsStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('stores an alert Unresolved and reads it back whole', async () => {
    const { store } = await seeded(fresh, [alert(1)]);
    const read = await store.get(alert(1).uniqueId, 'all');
    assert.deepEqual(read, { ...alert(1), status: 'Unresolved', resolvedMs: null, assignedTo: null, reportIgnored: null });
    assert.equal(await store.get('nope', 'all'), undefined);
  });

  it('searches each kind of field', async () => {
    const { store } = await seeded(fresh, [
      alert(1),
      alert(2, { watchlistName: 'Net tools', alertSeverity: 80, process: {
      ...alert(2).process!, processName: 'net.exe', processPath: 'c:\\windows\\system32\\net.exe',
      processPathKey: 'c:\\windows\\system32\\net.exe', hostname: 'db-2', groupId: 2,
    } }),
      alert(3, { alertType: 'watchlist.hit.query.binary', md5: 'b'.repeat(32), observedFilename: 'c:\\tools\\x.exe', process: null, totalHosts: 4 }),
    ]);
    const ids = async (q: string) => (await store.search(where(q), 'all', BY_TIME, 0, 10)).alerts.map((a) => Number(a.uniqueId.slice(-2)));
    const cases: [string, number[]][] = [
      ['', [1, 2, 3]],
      ['status:unresolved', [1, 2, 3]],
      ['status:"in progress"', []],
      ['hostname:WEB-1', [1]],
      ['hostname:*-2', [2]],
      ['process_name:net*', [2]],
      ['process_path:system32\\cmd.exe', [1]],
      ['watchlist_name:"net tools"', [2]],
      ['alert_severity:[60 TO *]', [2]],
      [`md5:${'B'.repeat(32)}`, [3]],
      ['alert_type:watchlist.hit.query.binary', [3]],
      ['observed_filename:c:\\tools\\x.exe', [3]],
      ['total_hosts:[2 TO *]', [3]],
      [`created_time:[* TO ${new Date(NOW + 2500).toISOString().slice(0, 19)}]`, [1, 2]],
      ['-hostname:web-1', [2, 3]],
      ['username:corp\\alice group:"default group"', [1, 2]],
      ['cmd.exe', [1]],
      ['unique_id:00000000-0000-4000-8000-000000000002', [2]],
      ['report_ignored:false', []],
    ];
    for (const [q, expected] of cases) assert.deepEqual(await ids(q), expected, q);
  });

  it('sorts with a tiebreaker, pages, counts, facets, and shows a caller only the groups they may see', async () => {
    const { store } = await seeded(fresh, [alert(1), alert(2, { alertSeverity: 90 }), alert(3, { process: { ...alert(3).process!, groupId: 2 } })]);
    const page = await store.search(where(''), 'all', [{ field: 'alert_severity', descending: true }], 0, 2);
    assert.equal(page.total, 3);
    assert.deepEqual(page.alerts.map((a) => a.uniqueId.slice(-1)), ['2', '3']);
    assert.deepEqual(await store.facet(where(''), 'all', 'hostname', 10), [{ value: 'web-1', count: 3 }]);
    const visible = await store.search(where(''), [2], BY_TIME, 0, 10);
    assert.deepEqual(visible.alerts.map((a) => a.uniqueId.slice(-1)), ['3']);
    assert.deepEqual((await store.search(where(''), [], BY_TIME, 0, 10)).total, 0);
    assert.equal(await store.get(alert(1).uniqueId, [2]), undefined);
  });

  it('changes status and assignee of the alerts selected, resolving and reopening', async () => {
    const { store } = await seeded(fresh, [alert(1), alert(2), alert(3)]);
    assert.equal(await store.change({ uniqueIds: [alert(1).uniqueId, 'missing'] }, 'all', { status: 'Resolved', assignedTo: 'ann' }, NOW + 9000), 1);
    let first = (await store.get(alert(1).uniqueId, 'all'))!;
    assert.deepEqual([first.status, first.resolvedMs, first.assignedTo], ['Resolved', NOW + 9000, 'ann']);
    await store.change({ uniqueIds: [alert(1).uniqueId] }, 'all', { status: 'False Positive' }, NOW + 10_000);
    first = (await store.get(alert(1).uniqueId, 'all'))!;
    assert.deepEqual([first.status, first.resolvedMs], ['False Positive', NOW + 9000], 'closing a closed alert keeps its resolved time');
    await store.change({ uniqueIds: [alert(1).uniqueId] }, 'all', { status: 'In Progress', assignedTo: null }, NOW + 11_000);
    first = (await store.get(alert(1).uniqueId, 'all'))!;
    assert.deepEqual([first.status, first.resolvedMs, first.assignedTo], ['In Progress', null, null]);

    assert.equal(await store.change({ predicate: where('status:unresolved') }, 'all', { status: 'Resolved' }, NOW), 2);
    assert.equal((await store.search(where('status:resolved'), 'all', BY_TIME, 0, 10)).total, 2);
    assert.equal(await store.change({ uniqueIds: [alert(2).uniqueId], predicate: where('status:unresolved') }, 'all', { assignedTo: 'x' }, NOW), 0,
      'ids and a query select the alerts named that match');
  });

  it('changes only one page of the matches when asked, in the order asked', async () => {
    const { store } = await seeded(fresh, [1, 2, 3, 4].map((n) => alert(n, { alertSeverity: n * 10 })));
    const page = { sort: [{ field: 'alert_severity', descending: true }], start: 1, rows: 2 };
    assert.equal(await store.change({ predicate: where(''), page }, 'all', { status: 'In Progress' }, NOW), 2);
    const changed = await store.search(where('status:"in progress"'), 'all', BY_TIME, 0, 10);
    assert.deepEqual(changed.alerts.map((a) => a.alertSeverity), [20, 30]);
  });

  it('ignores the reports behind the alerts selected, and shows it on every alert of the report', async () => {
    const db = await fresh();
    const feed = await new SqlFeedsStore(db, testSecretBox()).create(
      { feedUrl: 'file:///f.json', enabled: true, useProxy: null, validateServerCert: null, username: null, password: null,
        sslClientCrt: null, sslClientKey: null, localRating: null, order: null },
      parseFeed(JSON.stringify(cbfeed('intel', [{ id: 'r', title: 'R', iocs: { md5: ['a'.repeat(32)] } }])), NOW), NOW,
    );
    const report = (await db.get<{ id: number }>('SELECT id FROM threat_reports WHERE feed_id = ?', [feed.feed.id]))!.id;
    const fromFeed = (n: number) => alert(n, { feedId: feed.feed.id, feedName: 'intel', reportRow: report, watchlistId: 'r', iocType: 'md5' });
    await db.transaction(async (tx) => {
      for (const a of [fromFeed(1), fromFeed(2), alert(3)]) await insertAlert(tx, a);
    });
    const store = new SqlAlertsStore(db, SQLITE_ALERT_QUERY);
    assert.equal(await store.change({ uniqueIds: [fromFeed(1).uniqueId] }, 'all', { reportIgnored: true, status: 'False Positive' }, NOW), 1);
    assert.equal((await store.get(fromFeed(2).uniqueId, 'all'))?.reportIgnored, true);
    assert.equal((await store.get(alert(3).uniqueId, 'all'))?.reportIgnored, null);
    assert.deepEqual((await store.search(where('report_ignored:true'), 'all', BY_TIME, 0, 10)).alerts.map((a) => a.uniqueId), [1, 2].map((n) => fromFeed(n).uniqueId));
    assert.equal((await db.get<{ is_ignored: number }>('SELECT is_ignored FROM threat_reports WHERE id = ?', [report]))?.is_ignored, 1);
  });
}
