/** Hash bans over HTTP, as cbapi, the XSOAR integrations and the reference (admin §2) use them. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';

const URL = '/api/v1/banning/blacklist';
const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}[+-]\d{2}:\d{2}$/;

/** Every field of a ban record with its JSON type before any block was reported. */
const FIELD_TYPES: Record<string, string> = {
  md5hash: 'string', text: 'string', enabled: 'boolean', username: 'string', user_id: 'integer', timestamp: 'string',
  audit: 'array', block_count: 'integer', last_block_time: 'null', last_block_sensor_id: 'null', last_block_hostname: 'null',
  ban_count: 'integer', last_ban_time: 'null', last_ban_host: 'null',
};

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (Number.isInteger(value)) return 'integer';
  return typeof value;
}

let next = 0;
/** A fresh md5 for each test, so that tests sharing the app do not meet. */
const freshMd5 = () => (++next).toString(16).padStart(32, 'a');

describe('banning API', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp();
  });
  after(() => test.close());

  const admin = () => as(test.adminToken);
  const ban = (payload: unknown, headers = admin()) => test.app.inject({ method: 'POST', url: URL, headers, payload: payload as object });
  const read = (md5: string) => test.app.inject({ url: `${URL}/${md5}`, headers: admin() });
  const unban = (md5: string, payload?: object) => test.app.inject({ method: 'DELETE', url: `${URL}/${md5}`, headers: admin(), ...(payload ? { payload } : {}) });
  const list = async (query = '') => {
    const reply = await test.app.inject({ url: `${URL}${query}`, headers: admin() });
    assert.equal(reply.statusCode, 200, reply.body);
    return reply.json() as { md5hash: string; enabled: boolean }[];
  };

  it('bans a hash, answers success, and reads back the record in the shape of a real 6.x server', async () => {
    const md5 = freshMd5();
    const created = await ban({ md5hash: md5, text: 'ransomware dropper', enabled: true });
    assert.equal(created.statusCode, 200, created.body);
    assert.deepEqual(created.json(), { result: 'success' });

    const reply = await read(md5);
    assert.equal(reply.statusCode, 200);
    const record = reply.json();
    assert.deepEqual(Object.keys(record).sort(), Object.keys(FIELD_TYPES).sort());
    for (const [field, type] of Object.entries(FIELD_TYPES)) assert.equal(jsonType(record[field]), type, field);
    assert.match(record.timestamp, TIMESTAMP);
    assert.deepEqual(
      { ...record, timestamp: undefined, audit: undefined },
      {
        md5hash: md5, text: 'ransomware dropper', enabled: true, username: 'admin', user_id: record.user_id, timestamp: undefined,
        audit: undefined, block_count: 0, last_block_time: null, last_block_sensor_id: null, last_block_hostname: null,
        ban_count: 0, last_ban_time: null, last_ban_host: null,
      },
    );
    assert.deepEqual(record.audit, [
      { username: 'admin', user_id: record.user_id, timestamp: record.timestamp, text: 'ransomware dropper', enabled: true },
    ]);
  });

  it('takes md5s in either case and keeps them lowercase', async () => {
    const md5 = freshMd5();
    assert.equal((await ban({ md5hash: md5.toUpperCase(), text: 'x' })).statusCode, 200);
    assert.equal((await read(md5.toUpperCase())).json().md5hash, md5);
    assert.equal((await ban({ md5hash: md5, text: 'again' })).statusCode, 409);
  });

  it('accepts the 4.x README body, with "True" and the ban_* fields it copies', async () => {
    const md5 = freshMd5();
    const reply = await ban({ md5hash: md5, text: 'readme', last_ban_time: 0, ban_count: 0, last_ban_host: 0, enabled: 'True' });
    assert.equal(reply.statusCode, 200, reply.body);
    const record = (await read(md5)).json();
    assert.equal(record.enabled, true);
    assert.equal(record.ban_count, 0);
  });

  it('refuses to ban a hash that is already banned: 409, saying the banned hash already exists', async () => {
    const md5 = freshMd5();
    await ban({ md5hash: md5, text: 'first' });
    const again = await ban({ md5hash: md5, text: 'second' });
    assert.equal(again.statusCode, 409);
    assert.deepEqual(again.json(), { reason: 'conflict', message: `Ban for md5 '${md5}' already exists` });
    assert.equal((await read(md5)).json().text, 'first');
  });

  it('unbans by disabling: the record stays, without its text; banning again re-enables it', async () => {
    const md5 = freshMd5();
    await ban({ md5hash: md5, text: 'suspicious' });

    const deleted = await unban(md5);
    assert.equal(deleted.statusCode, 200, deleted.body);
    assert.deepEqual(deleted.json(), { result: 'success' });
    const disabled = (await read(md5)).json();
    assert.equal(disabled.enabled, false);
    assert.equal(disabled.text, '');
    assert.deepEqual(disabled.audit.map((entry: { enabled: boolean; text: string }) => [entry.enabled, entry.text]), [[true, 'suspicious'], [false, '']]);

    const again = await unban(md5);
    assert.equal(again.statusCode, 409);
    assert.match(again.json().message, /^Ban for md5 '[0-9a-f]{32}' does not exist$/);

    const reenabled = await ban({ md5hash: md5, text: 'back again', enabled: true });
    assert.equal(reenabled.statusCode, 200, reenabled.body);
    const record = (await read(md5)).json();
    assert.equal(record.enabled, true);
    assert.equal(record.text, 'back again');
    assert.equal(record.audit.length, 3);
  });

  it('unbans with a reason when the body gives one, and answers 409 "does not exist" for a hash never banned', async () => {
    const md5 = freshMd5();
    await ban({ md5hash: md5, text: 'oops' });
    assert.equal((await unban(md5, { text: 'false positive' })).statusCode, 200);
    assert.equal((await read(md5)).json().text, 'false positive');

    const never = await unban(freshMd5());
    assert.equal(never.statusCode, 409);
    assert.match(never.json().message, /does not exist/);
  });

  it('changes the text (and the state) with a PUT of the whole record as cbapi sends it; 404 for an unknown hash', async () => {
    const md5 = freshMd5();
    await ban({ md5hash: md5, text: 'before' });
    const record = (await read(md5)).json();
    const put = await test.app.inject({ method: 'PUT', url: `${URL}/${md5}`, headers: admin(), payload: { ...record, text: 'after' } });
    assert.equal(put.statusCode, 200, put.body);
    assert.deepEqual(put.json(), { result: 'success' });
    const changed = (await read(md5)).json();
    assert.equal(changed.text, 'after');
    assert.equal(changed.enabled, true);
    assert.equal(changed.timestamp, record.timestamp, 'the creation time stays');

    const disable = await test.app.inject({ method: 'PUT', url: `${URL}/${md5}`, headers: admin(), payload: { enabled: false } });
    assert.equal(disable.statusCode, 200);
    assert.equal((await read(md5)).json().enabled, false);

    const unknown = await test.app.inject({ method: 'PUT', url: `${URL}/${freshMd5()}`, headers: admin(), payload: { text: 'x' } });
    assert.equal(unknown.statusCode, 404);
    assert.equal((await read(freshMd5())).statusCode, 404);
  });

  it('answers 400 for an md5 that is not 32 hex digits, wherever it appears', async () => {
    for (const bad of ['abc', 'g'.repeat(32), 'a'.repeat(33)]) {
      const replies = [
        await ban({ md5hash: bad, text: 'x' }),
        await read(bad),
        await test.app.inject({ method: 'PUT', url: `${URL}/${bad}`, headers: admin(), payload: { text: 'x' } }),
        await unban(bad),
      ];
      for (const reply of replies) {
        assert.equal(reply.statusCode, 400, `${bad}: ${reply.body}`);
        assert.equal(reply.json().reason, 'invalid_request');
        assert.match(reply.json().message, /md5/);
      }
    }
    assert.equal((await ban({ text: 'no hash' })).statusCode, 400);
  });

  it('lists bans, enabled and disabled, newest first, paged by count and start, filtered the legacy way', async () => {
    const fresh = await startTestApp();
    after(() => fresh.close());
    const md5s = [freshMd5(), freshMd5(), freshMd5()];
    for (const md5 of md5s) {
      await fresh.app.inject({ method: 'POST', url: URL, headers: as(fresh.adminToken), payload: { md5hash: md5, text: md5 } });
      await sleep(3); // distinct creation times
    }
    await fresh.app.inject({ method: 'DELETE', url: `${URL}/${md5s[1]}`, headers: as(fresh.adminToken) });
    const fetch = async (query: string) => {
      const reply = await fresh.app.inject({ url: `${URL}${query}`, headers: as(fresh.adminToken) });
      assert.equal(reply.statusCode, 200, reply.body);
      return (reply.json() as { md5hash: string }[]).map((ban) => ban.md5hash);
    };

    assert.deepEqual(await fetch(''), [md5s[2], md5s[1], md5s[0]]);
    assert.deepEqual(await fetch('?count=10000'), [md5s[2], md5s[1], md5s[0]]);
    assert.deepEqual(await fetch('?count=1&start=1'), [md5s[1]]);
    assert.deepEqual(await fetch('?sort_col=timestamp&order_asc=true'), md5s);
    assert.deepEqual(await fetch(`?filter=${encodeURIComponent('enabled==true')}`), [md5s[2], md5s[0]]);
    assert.deepEqual(await fetch(`?filter=${encodeURIComponent(`md5hash==${md5s[1]!.toUpperCase()} && enabled==false`)}`), [md5s[1]]);
    assert.deepEqual(await fetch(`?filter=${encodeURIComponent(`md5hash==${md5s[1]} && enabled==true`)}`), []);

    const bad = await fresh.app.inject({ url: `${URL}?filter=${encodeURIComponent('text==x')}`, headers: as(fresh.adminToken) });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().message, /filter/);
    assert.equal((await fresh.app.inject({ url: `${URL}?sort_col=nonsense`, headers: as(fresh.adminToken) })).statusCode, 400);
  });

  it('answers an empty array when nothing is banned', async () => {
    const fresh = await startTestApp();
    after(() => fresh.close());
    const reply = await fresh.app.inject({ url: `${URL}?count=10000`, headers: as(fresh.adminToken) });
    assert.equal(reply.statusCode, 200);
    assert.deepEqual(reply.json(), []);
  });

  it('lets any user read bans and only a global admin change them', async () => {
    const md5 = freshMd5();
    await ban({ md5hash: md5, text: 'x' });
    const analyst = as(await createUser(test, { username: 'ban-reader' }));
    assert.equal((await test.app.inject({ url: `${URL}/${md5}`, headers: analyst })).statusCode, 200);
    assert.ok((await list()).some((entry) => entry.md5hash === md5));
    assert.equal((await ban({ md5hash: freshMd5(), text: 'x' }, analyst)).statusCode, 403);
    assert.equal((await test.app.inject({ method: 'PUT', url: `${URL}/${md5}`, headers: analyst, payload: { text: 'y' } })).statusCode, 403);
    assert.equal((await test.app.inject({ method: 'DELETE', url: `${URL}/${md5}`, headers: analyst })).statusCode, 403);
    assert.equal((await read(md5)).json().enabled, true);
  });

  it('says in /api/info that banning is served', async () => {
    assert.equal((await test.app.inject({ url: '/api/info', headers: admin() })).json().banningEnabled, true);
  });
});
