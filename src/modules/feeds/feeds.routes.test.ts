/** Feeds over HTTP (reference admin §4), fetched from a loopback server and from files. */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';
import { cbfeed, startFeedServer, writeFeedFile, type FeedServer } from '../../../test/support/feeds.js';
import { tempDir } from '../../../test/support/temp.js';

const URL = '/api/v1/feed';
const md5 = (c: string) => c.repeat(32);

describe('feeds API', () => {
  let test: TestApp;
  let server: FeedServer;
  let dir: string;
  before(async () => {
    test = await startTestApp({ feedDownloadLimitBytes: 64 * 1024, feedDownloadTimeoutSeconds: 1 });
    server = await startFeedServer();
    dir = tempDir('vigil-feed-files-');
  });
  after(async () => {
    await server.close();
    await test.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const admin = () => as(test.adminToken);
  const post = (payload: unknown) => test.app.inject({ method: 'POST', url: URL, headers: admin(), payload: payload as object });
  const reportTitle = async (feedId: number, reportId: string) =>
    (await test.app.inject({ url: `${URL}/${feedId}/report/${reportId}`, headers: admin() })).json().title;

  it('adds a feed from an http URL, filling the record from its feedinfo, in the real server\'s shape', async () => {
    server.serve(cbfeed('srsthreat', [{ id: 'r1', title: 'Bad hash', iocs: { md5: [md5('a')] } }], { category: 'Partner', icon: 'aWNvbg==' }));
    const created = await post({ feed_url: server.url, enabled: true, validate_server_cert: false, use_proxy: false, username: 'u', password: 'p' });
    assert.equal(created.statusCode, 200, created.body);
    const feed = created.json();
    assert.deepEqual(feed, {
      id: feed.id, name: 'srsthreat', display_name: 'srsthreat feed', feed_url: server.url, summary: 'Indicators from srsthreat',
      tech_data: 'There are no requirements to share any data to receive this feed.', provider_url: 'https://intel.example',
      icon: 'aWNvbg==', icon_small: '', category: 'Partner', provider_rating: 3, local_rating: null, enabled: true, use_proxy: false,
      validate_server_cert: false, username: 'u', password: null, ssl_client_crt: null, ssl_client_key: null, manually_added: true,
      order: null, requires: null, requires_who: null, requires_what: null,
    });
    assert.deepEqual((await test.app.inject({ url: `${URL}/${feed.id}`, headers: admin() })).json(), feed);
    assert.ok((await test.app.inject({ url: URL, headers: admin() })).json().some((f: { id: number }) => f.id === feed.id));
    assert.equal(await reportTitle(feed.id, 'r1'), 'Bad hash');
    assert.deepEqual((await test.app.inject({ url: `${URL}/${feed.id}/requirements`, headers: admin() })).json(), []);
  });

  it('adds a feed from a file URL', async () => {
    const url = writeFeedFile(dir, 'local.json', cbfeed('localintel', [{ id: 'x', title: 'Local', iocs: { dns: ['evil.example'] } }]));
    const created = await post({ feed_url: url });
    assert.equal(created.statusCode, 200, created.body);
    assert.deepEqual([created.json().name, created.json().enabled], ['localintel', true]);
  });

  it('refuses feeds it cannot fetch or read with a 4xx saying why, storing nothing', async () => {
    const before = (await test.app.inject({ url: URL, headers: admin() })).json().length;
    const cases: [() => void, string | undefined, number, string][] = [
      [() => server.serve('{"feedinfo": '), undefined, 409, 'feed_malformed'],
      [() => server.serve({ feedinfo: { name: 'x' }, reports: [] }), undefined, 409, 'feed_malformed'],
      [() => server.serve('x'.repeat(70 * 1024)), undefined, 409, 'feed_too_large'],
      [() => server.handle((_q, r) => r.writeHead(500).end()), undefined, 400, 'feed_unreachable'],
      [() => server.handle((_q, r) => r.writeHead(200).write('{')), undefined, 408, 'feed_timeout'],
      [() => undefined, 'file:///nonexistent/feed.json', 400, 'feed_unreachable'],
      [() => undefined, 'gopher://127.0.0.1/feed', 400, 'invalid_request'],
      [() => undefined, 'not a url', 400, 'invalid_request'],
    ];
    for (const [arrange, url, status, reason] of cases) {
      arrange();
      const response = await post({ feed_url: url ?? server.url });
      assert.equal(response.statusCode, status, `${reason}: ${response.body}`);
      assert.equal(response.json().reason, reason);
      assert.ok(response.json().message.length > 10);
    }
    server.handle((_q, r) => r.writeHead(200).end(JSON.stringify(cbfeed('srsthreat', []))));
    assert.equal((await post({ feed_url: server.url })).statusCode, 409, 'a feed of that name exists');
    assert.equal((await test.app.inject({ url: URL, headers: admin() })).json().length, before);
  });

  it('synchronizes incrementally and fully, and refuses to synchronize a disabled feed with 409', async () => {
    const reports = [
      { id: 'keep', title: 'Keep', timestamp: 100, iocs: { md5: [md5('1')] } },
      { id: 'drop', title: 'Drop', timestamp: 100, iocs: { md5: [md5('2')] } },
    ];
    server.serve(cbfeed('syncme', reports));
    const feed = (await post({ feed_url: server.url })).json();
    server.serve(cbfeed('syncme', [{ ...reports[0]!, title: 'Keep, newer', timestamp: 200 }, { id: 'new', title: 'New', iocs: { md5: [md5('3')] } }]));
    const sync = async (payload: unknown) => test.app.inject({ method: 'POST', url: `${URL}/${feed.id}/synchronize`, headers: admin(), payload: payload as object });
    assert.deepEqual((await sync({ full_sync: false })).json(), { result: 'success', reports_added: 1, reports_updated: 1, reports_deleted: 0 });
    assert.equal(await reportTitle(feed.id, 'keep'), 'Keep, newer');
    assert.deepEqual((await sync({ full_sync: true })).json(), { result: 'success', reports_added: 0, reports_updated: 2, reports_deleted: 1 });
    const dropped = (await test.app.inject({ url: `${URL}/${feed.id}/report/drop`, headers: admin() })).json();
    assert.equal(dropped.is_deleted, true);

    const read = (await test.app.inject({ url: `${URL}/${feed.id}`, headers: admin() })).json();
    const disabled = await test.app.inject({ method: 'PUT', url: `${URL}/${feed.id}`, headers: admin(), payload: { ...read, enabled: false } });
    assert.deepEqual(disabled.json(), { ...read, enabled: false });
    const refused = await sync({ full_sync: true });
    assert.equal(refused.statusCode, 409);
    assert.match(refused.json().message, /Cannot synchronize a disabled feed/);
    assert.equal((await test.app.inject({ method: 'POST', url: `${URL}/99999/synchronize`, headers: admin(), payload: {} })).statusCode, 404);
  });

  it('keeps write-only secrets when the record comes back as read, and clears them on ""', async () => {
    server.serve(cbfeed('secrets', []));
    const feed = (await post({ feed_url: server.url, username: 'feeder', password: 'pw' })).json();
    let basic: string | undefined;
    server.handle((request, response) => {
      basic = request.headers.authorization;
      response.end(JSON.stringify(cbfeed('secrets', [])));
    });
    await test.app.inject({ method: 'PUT', url: `${URL}/${feed.id}`, headers: admin(), payload: feed });
    await test.app.inject({ method: 'POST', url: `${URL}/${feed.id}/synchronize`, headers: admin(), payload: { full_sync: false } });
    assert.equal(basic, `Basic ${Buffer.from('feeder:pw').toString('base64')}`);
    await test.app.inject({ method: 'PUT', url: `${URL}/${feed.id}`, headers: admin(), payload: { password: '' } });
    await test.app.inject({ method: 'POST', url: `${URL}/${feed.id}/synchronize`, headers: admin(), payload: { full_sync: false } });
    assert.equal(basic, `Basic ${Buffer.from('feeder:').toString('base64')}`);
  });

  it('manages feed actions, carrying the feed id in group_id as cbapi reads it', async () => {
    server.serve(cbfeed('actions', []));
    const feed = (await post({ feed_url: server.url })).json();
    const created = await test.app.inject({
      method: 'POST', url: `${URL}/${feed.id}/action`, headers: admin(), payload: { action_type: 3, group_id: feed.id, watchlist_id: -1 },
    });
    const action = created.json();
    assert.deepEqual(action, { id: action.id, action_type: 3, action_data: null, watchlist_id: -1, group_id: feed.id });
    assert.deepEqual((await test.app.inject({ url: `${URL}/${feed.id}/action`, headers: admin() })).json(), [action]);
    assert.deepEqual((await test.app.inject({ method: 'DELETE', url: `${URL}/${feed.id}/action/${action.id}`, headers: admin() })).json(),
      { result: 'success' });
  });

  it('deletes a feed with its reports, and lets only global admins write', async () => {
    server.serve(cbfeed('doomed', [{ id: 'r', title: 'R', iocs: { md5: [md5('9')] } }]));
    const feed = (await post({ feed_url: server.url })).json();
    const token = await createUser(test, { username: 'feed-reader' });
    assert.equal((await test.app.inject({ url: `${URL}/${feed.id}`, headers: as(token) })).statusCode, 200);
    const writes = [
      await test.app.inject({ method: 'POST', url: URL, headers: as(token), payload: { feed_url: server.url } }),
      await test.app.inject({ method: 'PUT', url: `${URL}/${feed.id}`, headers: as(token), payload: { enabled: false } }),
      await test.app.inject({ method: 'POST', url: `${URL}/${feed.id}/synchronize`, headers: as(token), payload: {} }),
      await test.app.inject({ method: 'DELETE', url: `${URL}/${feed.id}`, headers: as(token) }),
    ];
    assert.deepEqual(writes.map((r) => r.statusCode), [403, 403, 403, 403]);
    assert.deepEqual((await test.app.inject({ method: 'DELETE', url: `${URL}/${feed.id}`, headers: admin() })).json(), { result: 'success' });
    assert.equal((await test.app.inject({ url: `${URL}/${feed.id}`, headers: admin() })).statusCode, 404);
    assert.equal((await test.app.inject({ url: `${URL}/${feed.id}/report/r`, headers: admin() })).statusCode, 404);
  });
});
