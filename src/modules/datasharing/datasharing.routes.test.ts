/** Data sharing per sensor group through the real app (reference core §7.1, cbapi's check_datasharing.py). */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';

const NOT_FOUND_PAGE = />The requested URL was not found on the server\./;

describe('group data sharing', () => {
  let test: TestApp;
  let groupId: number;
  let viewerToken: string;
  let outsiderToken: string;
  const admin = () => as(test.adminToken);

  before(async () => {
    test = await startTestApp();
    groupId = (await test.app.inject({ method: 'POST', url: '/api/group', headers: admin(), payload: { name: 'Servers' } })).json().id;
    const team = (await test.app.inject({
      method: 'POST', url: '/api/team', headers: admin(),
      payload: { name: 'Viewers', group_access: [{ group_id: groupId, access_category: 'Viewer' }] },
    })).json();
    viewerToken = await createUser(test, { username: 'viewer', teams: [team.id] });
    outsiderToken = await createUser(test, { username: 'outsider' });
  });
  after(() => test.close());

  const url = (group = groupId, config?: number) => `/api/v1/group/${group}/datasharing${config === undefined ? '' : `/${config}`}`;

  it('answers an empty list for a group that shares nothing', async () => {
    const reply = await test.app.inject({ url: url(1), headers: admin() });
    assert.equal(reply.statusCode, 200);
    assert.deepEqual(reply.json(), []);
  });

  it('adds, lists, reads and removes configurations as check_datasharing.py reads them', async () => {
    const added = await test.app.inject({ method: 'POST', url: url(), headers: admin(), payload: { group_id: groupId, who: 'VIRUSTOTAL', what: 'BIN' } });
    assert.equal(added.statusCode, 200, added.body);
    const config = added.json();
    assert.deepEqual(config, { id: config.id, group_id: groupId, who: 'VIRUSTOTAL', what: 'BIN' });
    const other = (await test.app.inject({ method: 'POST', url: url(), headers: admin(), payload: { who: 'BIT9', what: 'TIC' } })).json();

    // What the cbapi example does for every group: list, then look for who VIRUSTOTAL and what BIN.
    const groups = (await test.app.inject({ url: '/api/v3/group', headers: admin() })).json() as { id: number }[];
    const sharingWithVirusTotal = [];
    for (const group of groups) {
      const settings = (await test.app.inject({ url: url(group.id), headers: admin() })).json() as { who: string; what: string }[];
      if (settings.some((s) => s.what === 'BIN' && s.who === 'VIRUSTOTAL')) sharingWithVirusTotal.push(group.id);
    }
    assert.deepEqual(sharingWithVirusTotal, [groupId]);

    assert.deepEqual((await test.app.inject({ url: url(groupId, config.id), headers: admin() })).json(), config);
    const removed = await test.app.inject({ method: 'DELETE', url: url(groupId, config.id), headers: admin() });
    assert.equal(removed.statusCode, 200);
    assert.deepEqual(removed.json(), config);
    assert.deepEqual((await test.app.inject({ url: url(), headers: admin() })).json(), [other]);

    const cleared = await test.app.inject({ method: 'DELETE', url: url(), headers: admin() });
    assert.equal(cleared.statusCode, 200);
    assert.deepEqual(cleared.json(), { result: 'success' });
    assert.deepEqual((await test.app.inject({ url: url(), headers: admin() })).json(), []);
  });

  it('answers the Not Found page for an unknown group or configuration', async () => {
    const config = (await test.app.inject({ method: 'POST', url: url(), headers: admin(), payload: { who: 'VIRUSTOTAL', what: 'BIN' } })).json();
    const replies = [
      await test.app.inject({ url: url(4242), headers: admin() }),
      await test.app.inject({ method: 'POST', url: url(4242), headers: admin(), payload: { who: 'VIRUSTOTAL', what: 'BIN' } }),
      await test.app.inject({ method: 'DELETE', url: url(4242), headers: admin() }),
      await test.app.inject({ url: url(groupId, config.id + 1000), headers: admin() }),
      await test.app.inject({ url: url(1, config.id), headers: admin() }),
      await test.app.inject({ method: 'DELETE', url: url(1, config.id), headers: admin() }),
    ];
    for (const reply of replies) {
      assert.equal(reply.statusCode, 404, reply.body);
      assert.match(reply.body, NOT_FOUND_PAGE);
    }
    await test.app.inject({ method: 'DELETE', url: url(), headers: admin() });
  });

  it('refuses malformed and duplicate configurations', async () => {
    const post = (payload: object) => test.app.inject({ method: 'POST', url: url(), headers: admin(), payload });
    for (const bad of [{ who: 'virustotal', what: 'BIN' }, { who: 'VIRUSTOTAL' }, { who: 'VIRUSTOTAL', what: '' }, { who: 'VIRUSTOTAL', what: 'BIN', group_id: 1 }]) {
      const reply = await post(bad);
      assert.equal(reply.statusCode, 400, JSON.stringify(bad));
      assert.equal(reply.json().reason, 'invalid_request');
    }
    assert.equal((await post({ who: 'VIRUSTOTAL', what: 'BIN' })).statusCode, 200);
    assert.equal((await post({ who: 'VIRUSTOTAL', what: 'BIN' })).statusCode, 409);
    await test.app.inject({ method: 'DELETE', url: url(), headers: admin() });
  });

  it('lets a viewer of the group read, only a global admin change, and nobody in without a token', async () => {
    const config = (await test.app.inject({ method: 'POST', url: url(), headers: admin(), payload: { who: 'VIRUSTOTAL', what: 'BIN' } })).json();
    assert.deepEqual((await test.app.inject({ url: url(), headers: as(viewerToken) })).json(), [config]);
    assert.equal((await test.app.inject({ url: url(groupId, config.id), headers: as(viewerToken) })).statusCode, 200);

    const forbidden = [
      await test.app.inject({ url: url(), headers: as(outsiderToken) }),
      await test.app.inject({ url: url(groupId, config.id), headers: as(outsiderToken) }),
      await test.app.inject({ method: 'POST', url: url(), headers: as(viewerToken), payload: { who: 'BIT9', what: 'BIN' } }),
      await test.app.inject({ method: 'DELETE', url: url(groupId, config.id), headers: as(viewerToken) }),
      await test.app.inject({ method: 'DELETE', url: url(), headers: as(viewerToken) }),
    ];
    assert.deepEqual(forbidden.map((r) => r.statusCode), [403, 403, 403, 403, 403]);

    const anonymous = [
      await test.app.inject({ url: url() }),
      await test.app.inject({ url: url(groupId, config.id) }),
      await test.app.inject({ method: 'POST', url: url(), payload: { who: 'BIT9', what: 'BIN' } }),
      await test.app.inject({ method: 'DELETE', url: url(groupId, config.id) }),
      await test.app.inject({ method: 'DELETE', url: url() }),
    ];
    assert.deepEqual(anonymous.map((r) => r.statusCode), [401, 401, 401, 401, 401]);
    assert.deepEqual((await test.app.inject({ url: url(), headers: admin() })).json(), [config], 'nothing changed');
  });
});
