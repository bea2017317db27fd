/**
 * The contract of DetectionStore, run against every dialect (detection.store.test.ts) through an
 * implementation factory, on processes written by the dialect's event store as the ingest path
 * writes them.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { EventSide, MakeEventSide } from '../../test/support/event-side.js';
import { cbfeed } from '../../test/support/feeds.js';
import { testSecretBox } from '../../test/support/secrets.js';
import { processEvents } from '../../test/support/sensors.js';
import type { SqlDatabase } from '../db/database.js';
import { FilterGate } from '../ingest/ingress-gate.js';
import { EventPreparer } from '../ingest/prepare.js';
import { parseFeed } from '../modules/feeds/cbfeed.js';
import { SqlFeedsStore, type FeedSettings } from '../modules/feeds/feeds.store.js';
import { SqlSensorsStore } from '../modules/sensors/sensors.store.js';
import { SqlOutboxStore } from '../modules/notifications/outbox.store.js';
import { SqlDetectionActionsStore } from '../modules/watchlists/detection-actions.store.js';
import { SqlWatchlistsStore } from '../modules/watchlists/watchlists.store.js';
import { SqlDetectionStore } from './detection.store.js';

const T0 = Date.parse('2026-11-20T10:00:00Z');
const FEED: FeedSettings = {
  feedUrl: 'file:///f.json', enabled: true, useProxy: null, validateServerCert: null, username: null, password: null,
  sslClientCrt: null, sslClientKey: null, localRating: null, order: null,
};
let alertNumber = 0;
const newAlertId = () => `00000000-0000-4000-8000-${String(++alertNumber).padStart(12, '0')}`;

/** A sensor with two processes stored by the event store; their segment rows. */
async function withProcesses({ db, events }: EventSide): Promise<number[]> {
  const sensor = await new SqlSensorsStore(db).register({
    groupId: 1, secretHash: 'x', osType: 'windows', hostType: 'workstation', registrationMs: T0, computerName: 'HOST',
    computerDnsName: '', computerSid: '', osEnvironmentDisplayString: '', buildVersionString: '006.001.002.71109', buildId: 0,
    bootId: '1', networkAdapters: '10.1.2.3,00155D019C08|', physicalMemorySize: 0, systemvolumeTotalSize: 0, systemvolumeFreeSize: 0,
  });
  const identity = { id: sensor.id, groupId: 1, hostname: 'HOST', hostType: 'workstation' as const, osType: 'windows' as const };
  const prepared = new EventPreparer(new FilterGate()).prepare(
    { sensorId: sensor.id, groupId: 1, osType: 'windows' }, [...processEvents(10, T0), ...processEvents(20, T0 + 5)],
  );
  await events.commit([
    { sensor: identity, sequence: 1, ...prepared, counters: new Map() },
  ]);
  return (await db.all<{ id: number }>('SELECT id FROM segments ORDER BY id')).map((row) => row.id);
}

async function watchlist(db: SqlDatabase): Promise<number> {
  return (await new SqlWatchlistsStore(db).create({
    name: 'w', description: null, searchQuery: 'q=process_name%3Acmd.exe', indexType: 'events', enabled: true, readonly: false,
    groupId: -1, allianceId: null, fromAlliance: false,
  }, T0)).id;
}

export function detectionStoreContract(make: MakeEventSide): void {
  const fresh = () => make({ maxEventsPerSegment: 10_000, windowMs: 600_000 }, () => T0);

  it('keeps the match cursor unless a run gives one, and clears it when a run says null', async () => {
    const { db } = await fresh();
    const store = new SqlDetectionStore(db);
    const id = await watchlist(db);
    const cursor = async () => (await new SqlWatchlistsStore(db).get(id))?.matchCursor;
    await store.recordWatchlistRun({ watchlistId: id, ranAtMs: T0, cursor: 'a' }, newAlertId);
    await store.recordWatchlistRun({ watchlistId: id, ranAtMs: T0 + 1 }, newAlertId);
    assert.equal(await cursor(), 'a');
    await store.recordWatchlistRun({ watchlistId: id, ranAtMs: T0 + 2, cursor: null }, newAlertId);
    assert.equal(await cursor(), null);
    assert.equal((await new SqlWatchlistsStore(db).get(id))?.searchMs, T0 + 2);
  });

  it('advances a match cursor that was never set, and only from where it stands', async () => {
    const { db } = await fresh();
    const store = new SqlDetectionStore(db);
    const id = await watchlist(db);
    const first = { owner: 'watchlist' as const, id, from: null, to: 'segments:1' };
    assert.deepEqual(await store.advanceCursors([first], T0), [first]);
    assert.deepEqual(await store.advanceCursors([first], T0 + 1), [], 'the cursor moved on: no longer null');
    assert.equal((await new SqlWatchlistsStore(db).get(id))?.matchCursor, 'segments:1');
  });

  it('counts only documents that exist, and drops a watchlist\'s tags with it', async () => {
    const side = await fresh();
    const { db } = side;
    const segments = await withProcesses(side);
    const store = new SqlDetectionStore(db);
    const id = await watchlist(db);
    const outcome = await store.recordWatchlistRun({ watchlistId: id, ranAtMs: T0, segments: [...segments, 999_999] }, newAlertId);
    assert.deepEqual(outcome, { hits: 2, alerts: [] });
    const tagged = async () => (await side.tags.segmentTags(segments)).size;
    assert.equal(await tagged(), 2);
    await new SqlWatchlistsStore(db).delete(id);
    assert.equal(await tagged(), 0);
    assert.deepEqual(await store.recordWatchlistRun({ watchlistId: id, ranAtMs: T0, segments }, newAlertId), { hits: 0, alerts: [] });
  });

  it('queues one notification per email, syslog and HTTP POST action of a first hit, with or without the alert action', async () => {
    const side = await fresh();
    const { db } = side;
    const segments = await withProcesses(side);
    const store = new SqlDetectionStore(db);
    const id = await watchlist(db);
    const actions = new SqlDetectionActionsStore(db);
    await actions.create({ kind: 'watchlist', id }, 0, '{"email_recipients":[1,"2","ann",-3]}');
    await actions.create({ kind: 'watchlist', id }, 1, null);
    const outcome = await store.recordWatchlistRun({ watchlistId: id, ranAtMs: T0, segments: [segments[0]!] }, newAlertId);
    assert.deepEqual(outcome.alerts, [], 'the alert action is off');
    await store.recordWatchlistRun({ watchlistId: id, ranAtMs: T0 + 1, segments: [segments[0]!] }, newAlertId);
    const queued = await new SqlOutboxStore(db).due(T0 + 10, 10);
    assert.deepEqual(queued.map((entry) => entry.channel).sort(), ['email', 'syslog'], 'once, for the first hit on the process');
    assert.equal(queued[0]!.notificationId, queued[1]!.notificationId);
    const email = JSON.parse(queued.find((entry) => entry.channel === 'email')!.payload);
    assert.deepEqual(email.recipients, [1, 2, 'ann']);
    assert.deepEqual(email.source, { kind: 'watchlist', id, name: 'w' });
    assert.equal(email.alert.unique_id, email.id);
    assert.equal(email.alert.watchlist_id, String(id));
    assert.equal(email.alert.ioc_value, 'q=process_name%3Acmd.exe');
    assert.equal(email.alert.hostname, 'host');
  });

  it('queues the notifications of a feed\'s hit only for reports that may alert', async () => {
    const side = await fresh();
    const { db } = side;
    const segments = await withProcesses(side);
    const feeds = new SqlFeedsStore(db, testSecretBox());
    const feed = (await feeds.create(FEED, parseFeed(JSON.stringify(cbfeed('intel', [
      { id: 'bad', title: 'Bad', score: 80, iocs: { md5: ['a'.repeat(32)] } },
      { id: 'good', title: 'Good', score: -10, iocs: { md5: ['b'.repeat(32)] } },
    ])), T0), T0)).feed;
    await new SqlDetectionActionsStore(db).create({ kind: 'feed', id: feed.id }, 2, null);
    const store = new SqlDetectionStore(db);
    const reports = await store.iocReports('md5', ['a'.repeat(32), 'b'.repeat(32)]);
    await store.recordFeedHits(reports.map((r) => ({ reportRow: r.reportRow, iocType: 'md5', iocValue: r.value, segment: segments[0]!, atMs: T0 })), newAlertId);
    const queued = await new SqlOutboxStore(db).due(T0 + 10, 10);
    assert.deepEqual(queued.map((entry) => entry.channel), ['http_post'], 'not for the report of negative score');
    const payload = JSON.parse(queued[0]!.payload);
    assert.deepEqual(payload.source, { kind: 'feed', id: feed.id, name: 'intel' });
    assert.equal(payload.alert.watchlist_name, 'Bad');
    assert.equal(payload.alert.ioc_value, 'a'.repeat(32));
  });

  it('looks up IOC values among the reports of enabled feeds that are not deleted', async () => {
    const { db } = await fresh();
    const feeds = new SqlFeedsStore(db, testSecretBox());
    const md5 = (c: string) => c.repeat(32);
    const feed = (await feeds.create(FEED, parseFeed(JSON.stringify(cbfeed('one', [
      { id: 'a', title: 'A', iocs: { md5: [md5('a')], ipv4: ['10.0.0.1'] } },
      { id: 'b', title: 'B', iocs: { md5: [md5('b')] } },
    ])), T0), T0)).feed;
    await feeds.create({ ...FEED, enabled: false }, parseFeed(JSON.stringify(cbfeed('two', [
      { id: 'c', title: 'C', iocs: { md5: [md5('a')] } },
    ])), T0), T0);
    const store = new SqlDetectionStore(db);
    const found = await store.iocReports('md5', [md5('a'), md5('b'), md5('c')]);
    assert.deepEqual(found.map((r) => [r.feedId, r.value]).sort(), [[feed.id, md5('a')], [feed.id, md5('b')]], 'not the disabled feed\'s');
    assert.deepEqual((await store.iocReports('ipv4', ['10.0.0.1'])).map((r) => r.feedId), [feed.id]);
    await feeds.sync(feed.id, parseFeed(JSON.stringify(cbfeed('one', [{ id: 'a', title: 'A', iocs: { md5: [md5('a')] } }])), T0), true, T0 + 1);
    assert.deepEqual((await store.iocReports('md5', [md5('b')])), [], 'report b is deleted');
    assert.deepEqual((await store.iocReports('ipv4', ['10.0.0.1'])), [], 'report a no longer holds the address');
  });

  it('tags binaries only when the server knows them', async () => {
    const { db } = await fresh();
    const store = new SqlDetectionStore(db);
    const id = (await new SqlWatchlistsStore(db).create({
      name: 'b', description: null, searchQuery: 'q=is_64bit%3Atrue', indexType: 'modules', enabled: true, readonly: false,
      groupId: -1, allianceId: null, fromAlliance: false,
    }, T0)).id;
    assert.deepEqual(await store.recordWatchlistRun({ watchlistId: id, ranAtMs: T0, binaries: ['e'.repeat(32)] }, newAlertId),
      { hits: 0, alerts: [] });
  });
}
