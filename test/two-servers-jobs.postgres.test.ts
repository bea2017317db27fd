/**
 * Issue 18 point 5, the jobs, with two whole `vigil serve` processes on one PostgreSQL database:
 * a watchlist matched at ingest on both servers tags and alerts each process once, bulk alert
 * changes asked of both servers at once apply as in one order, a feed added on one server matches
 * the other's ingest at once, a scheduled feed synchronization runs on one server only, and when
 * that server is killed in the middle of it the other takes the job over once the lease
 * (jobLeaseSeconds, 2 s here) runs out.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { cbfeed, startFeedServer, type FeedServer } from './support/feeds.js';
import { processEvents } from './support/sensors.js';
import { call, killHard, pollUntil, registerSensor, startCluster, uploadOn, type Cluster } from './support/vigil-cluster.js';
import type { Server } from './support/vigil-cli.js';

const LEASE_SECONDS = 2;
const SHELL_MD5 = 'AD7B9C14083B52BC532FBA5948342B98';

describe('jobs of two vigil servers on one PostgreSQL database', () => {
  let cluster: Cluster;
  let a: Server;
  let b: Server;
  let token: string;
  let db: pg.Client;
  let feeds: FeedServer;
  before(async () => {
    cluster = await startCluster(2, { VIGIL_JOB_LEASE_SECONDS: String(LEASE_SECONDS) });
    [a, b] = cluster.servers as [Server, Server];
    token = cluster.adminToken;
    db = new pg.Client({ connectionString: cluster.database.url });
    await db.connect();
    feeds = await startFeedServer();
  });
  after(async () => {
    await db.end();
    await feeds.close();
    await cluster.close();
  });

  it('a watchlist matched at ingest on both servers tags and alerts each process once; bulk alert changes on both apply as in one order', async () => {
    const created = await call(a, token, 'POST', '/api/v1/watchlist', { name: 'Shells', search_query: 'q=process_name:cmd.exe', index_type: 'events' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const id = created.body.id as number;
    assert.equal((await call(a, token, 'PUT', `/api/v1/watchlist/${id}/action_type/3`, { enabled: true })).status, 200);
    const sensors = [await registerSensor(a, token, { computer_name: 'WL-A' }), await registerSensor(b, token, { computer_name: 'WL-B' })];
    const processes = 12;
    for (let round = 0; round < processes / 2; round++) {
      const uploads = [a, b].map((server, i) => uploadOn(server, sensors[i]!, round + 1, processEvents(8000 + round, Date.now())));
      for (const ack of await Promise.all(uploads)) assert.equal(ack.status, 200, JSON.stringify(ack.body));
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const watchlist = () => call(b, token, 'GET', `/api/v1/watchlist/${id}`);
    const tagged = await pollUntil(watchlist, (read) => Number(read.body.total_tags) >= processes, 20_000, 200);
    assert.ok(tagged.ok, `every process tagged: ${JSON.stringify(tagged.value.body)}`);
    // Both servers' live runs and the catch-up passes have had time to match everything again.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const settled = (await watchlist()).body;
    assert.equal(settled.total_tags, String(processes), JSON.stringify(settled));
    // Both servers' live runs read every new segment; one that another run tagged meanwhile is not counted again.
    assert.equal(settled.total_hits, String(processes), JSON.stringify(settled));
    console.log(`# watchlist: ${settled.total_tags} processes tagged, ${settled.total_hits} hits counted`);
    const alerts = await call(a, token, 'GET', `/api/v2/alert?q=${encodeURIComponent(`watchlist_id:${id}`)}&rows=100`);
    assert.equal(alerts.body.total_results, processes, 'one alert per process');

    // Bulk changes asked of both servers at once apply as if one ran after the other, to every
    // alert alike. A status change without assigned_to assigns the alert to whoever changed it,
    // so the order decides assigned_to; the status is kept either way.
    const query = `q=${encodeURIComponent(`watchlist_id:${id}`)}`;
    const changes = await Promise.all([
      call(a, token, 'POST', '/api/v1/alerts', { query, requested_status: 'In Progress' }),
      call(b, token, 'POST', '/api/v1/alerts', { query, assigned_to: 'ann' }),
    ]);
    for (const change of changes) assert.deepEqual(change.body, { result: 'success' });
    const changed = await call(b, token, 'GET', `/api/v2/alert?${query}&rows=100`);
    const states = new Set((changed.body.results as { status: string; assigned_to: string }[]).map((alert) => `${alert.status}/${alert.assigned_to}`));
    assert.equal(states.size, 1, `every alert alike: ${[...states].join(', ')}`);
    assert.ok(['In Progress/ann', 'In Progress/admin'].includes([...states][0]!), `one order or the other: ${[...states][0]}`);
  });

  it('the IOCs of a feed added on A match what B takes in at once', async () => {
    feeds.serve(cbfeed('crossintel', [{ id: 'cross', title: 'Cross', iocs: { md5: [SHELL_MD5.toLowerCase()] } }]));
    const created = await call(a, token, 'POST', '/api/v1/feed', { feed_url: feeds.url, enabled: true, validate_server_cert: false, use_proxy: false });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const sensor = await registerSensor(b, token, { computer_name: 'IOC-B' });
    assert.equal((await uploadOn(b, sensor, 1, processEvents(9000, Date.now()))).status, 200);
    const tagged = await pollUntil(
      () => call(b, token, 'GET', `/api/v1/process?q=${encodeURIComponent('hostname:IOC-B')}&rows=1`),
      (search) => search.body.results?.[0]?.alliance_score_crossintel === 50,
      3_000, 100,
    );
    assert.ok(tagged.ok, `B's ingest matched the feed A synchronized: ${JSON.stringify(tagged.value.body.results)}`);
    // The next test counts the downloads of one feed.
    assert.equal((await call(a, token, 'DELETE', `/api/v1/feed/${created.body.id}`)).status, 200);
  });

  it('the scheduled feed synchronization runs on one server; killed during it, the other takes it over after the lease', async () => {
    feeds.serve(cbfeed('sharedintel', [{ id: 'shell', title: 'Shell', iocs: { md5: [SHELL_MD5.toLowerCase()] } }]));
    const created = await call(a, token, 'POST', '/api/v1/feed', { feed_url: feeds.url, enabled: true, validate_server_cert: false, use_proxy: false });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const feedId = created.body.id as number;
    const before = feeds.requests;
    const held: ServerResponse[] = [];
    feeds.handle((_request, response) => void held.push(response));
    // As if the last synchronization began an hour ago: it is due at the servers' next check.
    await db.query("UPDATE job_leases SET ran_ms = 0 WHERE name = 'feed-sync'");

    const first = await pollUntil(async () => held.length, (count) => count >= 1, 4 * LEASE_SECONDS * 1000, 50);
    assert.ok(first.ok, 'one server began the synchronization');
    // The holder renews its lease while the download hangs; the other server leaves the job alone.
    await new Promise((resolve) => setTimeout(resolve, 2.5 * LEASE_SECONDS * 1000));
    assert.equal(feeds.requests - before, 1, 'one synchronization at a time across the servers');

    const holder = async () => (await db.query<{ holder: string }>("SELECT holder FROM job_leases WHERE name = 'feed-sync'")).rows[0]!.holder;
    const firstHolder = await holder();
    const victim = [a, b].find((server) => firstHolder.includes(`:${server.child.pid}:`));
    assert.ok(victim, `the lease names a server: ${firstHolder}`);
    const survivor = victim === a ? b : a;
    const killedAt = Date.now();
    await killHard(victim);
    const second = await pollUntil(async () => held.length, (count) => count >= 2, 4 * LEASE_SECONDS * 1000, 50);
    assert.ok(second.ok, 'the other server took the synchronization over');
    console.log(`# the feed synchronization moved ${Date.now() - killedAt} ms after its holder was killed (lease ${LEASE_SECONDS} s)`);
    assert.ok((await holder()).includes(`:${survivor.child.pid}:`));
    const document = JSON.stringify(cbfeed('sharedintel', [{ id: 'shell', title: 'Shell', iocs: { md5: [SHELL_MD5.toLowerCase()] } }]));
    held[1]!.writeHead(200, { 'content-type': 'application/json' }).end(document);
    const finished = await pollUntil(
      async () => (await db.query<{ expires_ms: string; ran_ms: string }>("SELECT expires_ms, ran_ms FROM job_leases WHERE name = 'feed-sync'")).rows[0]!,
      (row) => Number(row.expires_ms) === 0 && Number(row.ran_ms) > 0,
      5_000, 50,
    );
    assert.ok(finished.ok, 'the survivor finished the run and freed the lease');
    const reports = await db.query<{ count: string }>('SELECT count(*) FROM threat_reports WHERE feed_id = $1', [feedId]);
    assert.equal(Number(reports.rows[0]!.count), 1, 'the feed\'s report stored once');
    await new Promise((resolve) => setTimeout(resolve, 2 * LEASE_SECONDS * 1000));
    assert.equal(held.length, 2, 'no further run within the period');
  });
});
