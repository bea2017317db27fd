/**
 * The contract of DetectionStore, run against every dialect (detection.store.test.ts), on
 * processes written by the embedded event store as the ingest path writes them.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { cbfeed } from '../../test/support/feeds.js';
import { testSecretBox } from '../../test/support/secrets.js';
import { processEvents } from '../../test/support/sensors.js';
import type { SqlDatabase } from '../db/database.js';
import { SqliteDatabase } from '../db/dialects/sqlite.js';
import { FilterGate } from '../ingest/ingress-gate.js';
import { EventPreparer } from '../ingest/prepare.js';
import { parseFeed } from '../modules/feeds/cbfeed.js';
import { SqlFeedsStore, type FeedSettings } from '../modules/feeds/feeds.store.js';
import { SqliteEventStore } from '../modules/processes/event-store.sqlite.js';
import { SqlSensorsStore } from '../modules/sensors/sensors.store.js';
import { SqlWatchlistsStore } from '../modules/watchlists/watchlists.store.js';
import { SqlDetectionStore } from './detection.store.js';
import { segmentTags } from './document-tags.js';
import { connectionReader } from './document-tags.sqlite.js';

const T0 = Date.parse('2026-11-20T10:00:00Z');
const FEED: FeedSettings = {
  feedUrl: 'file:///f.json', enabled: true, useProxy: null, validateServerCert: null, username: null, password: null,
  sslClientCrt: null, sslClientKey: null, localRating: null, order: null,
};
let alertNumber = 0;
const newAlertId = () => `00000000-0000-4000-8000-${String(++alertNumber).padStart(12, '0')}`;

/** A sensor with two processes stored by the event store; their segment rows. */
async function withProcesses(db: SqlDatabase): Promise<number[]> {
  if (!(db instanceof SqliteDatabase)) throw new Error('processes are written by the embedded event store');
  const sensor = await new SqlSensorsStore(db).register({
    groupId: 1, secretHash: 'x', osType: 'windows', hostType: 'workstation', registrationMs: T0, computerName: 'HOST',
    computerDnsName: '', computerSid: '', osEnvironmentDisplayString: '', buildVersionString: '006.001.002.71109', buildId: 0,
    bootId: '1', networkAdapters: '10.1.2.3,00155D019C08|', physicalMemorySize: 0, systemvolumeTotalSize: 0, systemvolumeFreeSize: 0,
  });
  const identity = { id: sensor.id, groupId: 1, hostname: 'HOST', hostType: 'workstation' as const, osType: 'windows' as const };
  const prepared = new EventPreparer(new FilterGate()).prepare(
    { sensorId: sensor.id, groupId: 1, osType: 'windows' }, [...processEvents(10, T0), ...processEvents(20, T0 + 5)],
  );
  await new SqliteEventStore(db, { maxEventsPerSegment: 10_000, windowMs: 600_000 }, () => T0).commit([
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

export function detectionStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('keeps the match cursor unless a run gives one, and clears it when a run says null', async () => {
    const db = await fresh();
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
    const db = await fresh();
    const store = new SqlDetectionStore(db);
    const id = await watchlist(db);
    const first = { owner: 'watchlist' as const, id, from: null, to: 'segments:1' };
    assert.deepEqual(await store.advanceCursors([first], T0), [first]);
    assert.deepEqual(await store.advanceCursors([first], T0 + 1), [], 'the cursor moved on: no longer null');
    assert.equal((await new SqlWatchlistsStore(db).get(id))?.matchCursor, 'segments:1');
  });

  it('counts only documents that exist, and drops a watchlist\'s tags with it', async () => {
    const db = await fresh();
    const segments = await withProcesses(db);
    const store = new SqlDetectionStore(db);
    const id = await watchlist(db);
    const outcome = await store.recordWatchlistRun({ watchlistId: id, ranAtMs: T0, segments: [...segments, 999_999] }, newAlertId);
    assert.deepEqual(outcome, { hits: 2, tagged: 2, alerts: [] });
    const tagged = () => segmentTags(connectionReader((db as SqliteDatabase).connection), segments).size;
    assert.equal(tagged(), 2);
    await new SqlWatchlistsStore(db).delete(id);
    assert.equal(tagged(), 0);
    assert.deepEqual(await store.recordWatchlistRun({ watchlistId: id, ranAtMs: T0, segments }, newAlertId), { hits: 0, tagged: 0, alerts: [] });
  });

  it('looks up IOC values among the reports of enabled feeds that are not deleted', async () => {
    const db = await fresh();
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
    const db = await fresh();
    const store = new SqlDetectionStore(db);
    const id = (await new SqlWatchlistsStore(db).create({
      name: 'b', description: null, searchQuery: 'q=is_64bit%3Atrue', indexType: 'modules', enabled: true, readonly: false,
      groupId: -1, allianceId: null, fromAlliance: false,
    }, T0)).id;
    assert.deepEqual(await store.recordWatchlistRun({ watchlistId: id, ranAtMs: T0, binaries: ['e'.repeat(32)] }, newAlertId),
      { hits: 0, tagged: 0, alerts: [] });
  });
}
