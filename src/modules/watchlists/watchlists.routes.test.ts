/** Watchlists over HTTP, in the shapes reference admin §1 recorded from a real server. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';

const URL = '/api/v1/watchlist';
const RECORD_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}[+-]\d{2}:\d{2}$/;

describe('watchlists API', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp();
  });
  after(() => test.close());

  const admin = () => as(test.adminToken);
  const create = async (body: Record<string, unknown>): Promise<number> => {
    const response = await test.app.inject({ method: 'POST', url: URL, headers: admin(), payload: body });
    assert.equal(response.statusCode, 200, response.body);
    const reply = response.json();
    assert.deepEqual(Object.keys(reply), ['id']);
    assert.equal(typeof reply.id, 'number');
    return reply.id;
  };
  const read = async (id: number) => (await test.app.inject({ url: `${URL}/${id}`, headers: admin() })).json();

  it('creates from the fields cbapi sends, answers {"id": n}, and reads back the real server\'s types', async () => {
    const searchQuery = 'q=process_name%3Acmd.exe&cb.urlver=1&cb.q.hostname=web1+x';
    const id = await create({ id: null, name: 'Shells', search_query: searchQuery, index_type: 'events' });
    const watchlist = await read(id);
    const { date_added: dateAdded, ...rest } = watchlist;
    assert.match(dateAdded, RECORD_TIME);
    assert.deepEqual(rest, {
      id: String(id), name: 'Shells', description: null, search_query: searchQuery, index_type: 'events', enabled: true,
      readonly: false, group_id: -1, alliance_id: null, from_alliance: false, last_hit: null, last_hit_count: 0,
      total_hits: '0', total_tags: '0', search_timestamp: '1970-01-01T00:00:00.000000Z',
    });
    const list = (await test.app.inject({ url: URL, headers: admin() })).json();
    assert.deepEqual(list.find((w: { id: string }) => w.id === String(id)), watchlist);
  });

  it('keeps a search without any parameter verbatim, as Carbon Black did, and searches binaries for modules', async () => {
    const bare = await create({ name: 'Bare', search_query: 'chrome.exe', index_type: 'events' });
    assert.equal((await read(bare)).search_query, 'chrome.exe');
    const binary = await create({ name: 'Unsigned', search_query: 'cb.urlver=1&q=digsig_result%3AUnsigned', index_type: 'modules' });
    assert.equal((await read(binary)).index_type, 'modules');
  });

  it('refuses a search it cannot run with 400 query_malformed_syntax, and bad fields with 400', async () => {
    const cases: [Record<string, unknown>, RegExp | string][] = [
      [{ name: 'x', search_query: 'q=process_name%3A(cmd.exe', index_type: 'events' }, 'query_malformed_syntax'],
      [{ name: 'x', search_query: 'q=disig_issuer%3Afoo', index_type: 'events' }, 'query_malformed_syntax'],
      [{ name: 'x', search_query: 'q=cmdline%3Afoo', index_type: 'modules' }, 'query_malformed_syntax'],
      [{ name: 'x', search_query: 'q=a', index_type: 'processes' }, 'invalid_request'],
      [{ search_query: 'q=a' }, 'invalid_request'],
      [{ name: 'x', search_query: 'q=a', id: 'twelve' }, 'invalid_request'],
    ];
    for (const [payload, reason] of cases) {
      const response = await test.app.inject({ method: 'POST', url: URL, headers: admin(), payload });
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assert.equal(response.json().reason, reason, JSON.stringify(payload));
    }
  });

  it('creates with a known id, and answers 409 when it is taken', async () => {
    assert.equal(await create({ id: 2414, name: 'Known', search_query: 'q=a' }), 2414);
    assert.equal(await create({ id: '2500', name: 'Known as text', search_query: 'q=a' }), 2500);
    const taken = await test.app.inject({ method: 'POST', url: URL, headers: admin(), payload: { id: 2414, name: 'Again', search_query: 'q=b' } });
    assert.equal(taken.statusCode, 409);
    assert.equal((await read(2414)).name, 'Known');
  });

  it('updates from the full record as read: disabling keeps every other field', async () => {
    const id = await create({ name: 'Toggle', search_query: 'cb.urlver=1&q=process_name%3Anotepad.exe', description: 'd' });
    const before = await read(id);
    const put = await test.app.inject({ method: 'PUT', url: `${URL}/${id}`, headers: admin(), payload: { ...before, enabled: false } });
    assert.deepEqual(put.json(), { result: 'success' });
    assert.deepEqual(await read(id), { ...before, enabled: false });
    await test.app.inject({ method: 'PUT', url: `${URL}/${id}`, headers: admin(), payload: { ...before, enabled: true, total_hits: '99' } });
    assert.deepEqual(await read(id), before);
  });

  it('updates from the partial record XSOAR sends, checking the new search', async () => {
    const id = await create({ name: 'Partial', search_query: 'q=process_name%3Anotepad.exe' });
    const put = await test.app.inject({
      method: 'PUT', url: `${URL}/${id}`, headers: admin(),
      payload: { search_query: 'q=process_name%3Acalc.exe', description: 'now calc', enabled: false },
    });
    assert.equal(put.statusCode, 200);
    const after = await read(id);
    assert.deepEqual([after.name, after.search_query, after.description, after.enabled], ['Partial', 'q=process_name%3Acalc.exe', 'now calc', false]);
    const bad = await test.app.inject({ method: 'PUT', url: `${URL}/${id}`, headers: admin(), payload: { search_query: 'q=%28' } });
    assert.equal(bad.json().reason, 'query_malformed_syntax');
    const wrongIndex = await test.app.inject({ method: 'PUT', url: `${URL}/${id}`, headers: admin(), payload: { index_type: 'modules' } });
    assert.equal(wrongIndex.statusCode, 400, 'process_name is no binary field');
    assert.equal((await read(id)).search_query, 'q=process_name%3Acalc.exe');
  });

  it('deletes with or without the legacy body, then answers 404; non-numeric ids are 400', async () => {
    const first = await create({ name: 'Gone', search_query: 'q=a' });
    const second = await create({ name: 'Gone too', search_query: 'q=a' });
    assert.deepEqual((await test.app.inject({ method: 'DELETE', url: `${URL}/${first}`, headers: admin() })).json(), { result: 'success' });
    const legacy = await test.app.inject({ method: 'DELETE', url: `${URL}/${second}`, headers: admin(), payload: { id: second } });
    assert.deepEqual(legacy.json(), { result: 'success' });
    for (const id of [first, second]) {
      assert.equal((await test.app.inject({ url: `${URL}/${id}`, headers: admin() })).statusCode, 404);
      assert.equal((await test.app.inject({ method: 'DELETE', url: `${URL}/${id}`, headers: admin() })).statusCode, 404);
      assert.equal((await test.app.inject({ method: 'PUT', url: `${URL}/${id}`, headers: admin(), payload: { enabled: true } })).statusCode, 404);
    }
    assert.equal((await test.app.inject({ url: `${URL}/abc`, headers: admin() })).statusCode, 400);
  });

  it('lets a read-only watchlist be enabled and disabled, nothing more', async () => {
    const id = await create({ name: 'Alliance', search_query: 'q=a', readonly: true });
    const before = await read(id);
    const toggled = await test.app.inject({ method: 'PUT', url: `${URL}/${id}`, headers: admin(), payload: { ...before, enabled: false } });
    assert.equal(toggled.statusCode, 200);
    const renamed = await test.app.inject({ method: 'PUT', url: `${URL}/${id}`, headers: admin(), payload: { ...before, name: 'Mine' } });
    assert.equal(renamed.statusCode, 403);
    assert.equal((await test.app.inject({ method: 'DELETE', url: `${URL}/${id}`, headers: admin() })).statusCode, 403);
    assert.deepEqual(await read(id), { ...before, enabled: false });
  });

  it('manages actions: one per type, by id and by type', async () => {
    const id = await create({ name: 'With actions', search_query: 'q=a' });
    const actions = `${URL}/${id}/action`;
    const created = await test.app.inject({
      method: 'POST', url: actions, headers: admin(), payload: { action_type: 0, action_data: '{"email_recipients":[1]}', watchlist_id: id },
    });
    assert.equal(created.statusCode, 200, created.body);
    const email = created.json();
    assert.deepEqual(email, { id: email.id, action_type: 0, action_data: '{"email_recipients":[1]}', watchlist_id: id, group_id: id });
    const again = await test.app.inject({ method: 'POST', url: actions, headers: admin(), payload: { action_type: 0 } });
    assert.equal(again.statusCode, 409);
    const changed = await test.app.inject({
      method: 'PUT', url: `${actions}/${email.id}`, headers: admin(), payload: { ...email, action_data: { email_recipients: [1, 2] } },
    });
    assert.equal(changed.json().action_data, '{"email_recipients":[1,2]}');
    const turnOn = await test.app.inject({ method: 'PUT', url: `${URL}/${id}/action_type/3`, headers: admin(), payload: { enabled: true } });
    assert.deepEqual(turnOn.json(), { result: 'success' });
    const types = (await test.app.inject({ url: `${URL}/${id}/action_type`, headers: admin() })).json();
    assert.deepEqual(types.map((t: { type: string; enabled: boolean }) => [t.type, t.enabled]),
      [['email', true], ['syslog', false], ['http_post', false], ['alert', true]]);
    assert.deepEqual((await test.app.inject({ url: actions, headers: admin() })).json().map((a: { action_type: number }) => a.action_type), [0, 3]);
    await test.app.inject({ method: 'PUT', url: `${URL}/${id}/action_type/3`, headers: admin(), payload: { enabled: false } });
    assert.deepEqual((await test.app.inject({ method: 'DELETE', url: `${actions}/${email.id}`, headers: admin() })).json(), { result: 'success' });
    assert.deepEqual((await test.app.inject({ url: actions, headers: admin() })).json(), []);
    assert.equal((await test.app.inject({ method: 'DELETE', url: `${actions}/${email.id}`, headers: admin() })).statusCode, 404);
    assert.equal((await test.app.inject({ url: `${URL}/999999/action`, headers: admin() })).statusCode, 404);
    assert.equal((await test.app.inject({ method: 'POST', url: actions, headers: admin(), payload: { action_type: 7 } })).statusCode, 400);
  });

  it('lets any user read and only global admins write', async () => {
    const id = await create({ name: 'Shared', search_query: 'q=a' });
    const token = await createUser(test, { username: 'watcher' });
    assert.equal((await test.app.inject({ url: URL, headers: as(token) })).statusCode, 200);
    assert.equal((await test.app.inject({ url: `${URL}/${id}`, headers: as(token) })).statusCode, 200);
    const writes = [
      await test.app.inject({ method: 'POST', url: URL, headers: as(token), payload: { name: 'x', search_query: 'q=a' } }),
      await test.app.inject({ method: 'PUT', url: `${URL}/${id}`, headers: as(token), payload: { enabled: false } }),
      await test.app.inject({ method: 'DELETE', url: `${URL}/${id}`, headers: as(token) }),
      await test.app.inject({ method: 'POST', url: `${URL}/${id}/action`, headers: as(token), payload: { action_type: 3 } }),
    ];
    assert.deepEqual(writes.map((r) => r.statusCode), [403, 403, 403, 403]);
  });
});
