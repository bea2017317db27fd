/**
 * Facets on every field of the catalogue (reference core §3.2: the server faceted on any indexed
 * field), counted from the data over HTTP: process columns, segment columns, event terms and the
 * process's binary, for segments and for processes (cb.group=id). The fleet has one segment per
 * process, so both count 5 documents over everything.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { buildFleet, EVENT_VALUES, searchProcesses, type FacetEntry } from '../../../test/support/search.js';

const counts = (entries: FacetEntry[] | undefined) => (entries ?? []).map((e) => [e.name, e.value]);

describe('process search: facets on the catalogue fields', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp();
    await buildFleet(test);
  });
  after(() => test.close());

  const facets = async (fields: string[], extra: Record<string, string> = {}) =>
    (await searchProcesses(test, { rows: 0, facet: 'true', 'facet.field': fields, ...extra })).facets;

  it('answers username as username_full, counted per user as sent', async () => {
    const reply = await facets(['username', 'username_full']);
    const expected = [['CORP\\Alice', 2], ['CORP\\alice', 1], ['root', 1], ['www-data', 1]];
    assert.deepEqual(counts(reply.username), expected);
    assert.deepEqual(reply.username, reply.username_full);
    assert.deepEqual(reply.username![0], { name: 'CORP\\Alice', value: 2, percent: 40, ratio: 40 });
  });

  it('counts event values by the documents holding them, addresses written as addresses', async () => {
    const reply = await facets(['ja3', 'ipaddr', 'ipv6addr', 'ipport', 'domain', 'childproc_name', 'crossproc_type', 'tampered']);
    assert.deepEqual(counts(reply.ja3), [[EVENT_VALUES.ja3.toLowerCase(), 1]]);
    // Ties in address order (the stored form sorts so).
    assert.deepEqual(counts(reply.ipaddr), [['13.107.4.50', 1], ['93.184.216.34', 1], ['185.1.2.3', 1]]);
    assert.deepEqual(counts(reply.ipv6addr), [['2001:db8:85a3::8a2e:370:7334', 1]]);
    assert.deepEqual(counts(reply.ipport), [['443', 2], ['80', 1], ['8080', 1]]);
    assert.deepEqual(counts(reply.domain), [['evil.example.ru', 1], ['example.com', 1], ['update.microsoft.com', 1]]);
    assert.deepEqual(counts(reply.childproc_name), [['whoami.exe', 1]]);
    assert.deepEqual(counts(reply.crossproc_type), [['processopen', 1], ['remotethread', 1]]);
    assert.deepEqual(counts(reply.tampered), [['true', 1]]);
  });

  it('counts segment columns and the process\'s binary', async () => {
    const reply = await facets(['netconn_count', 'last_update', 'digsig_result', 'company_name', 'is_64bit', 'sensor_id', 'process_id']);
    assert.deepEqual(counts(reply.netconn_count), [['1', 4], ['0', 1]]);
    // Days of the last 30, as the start facet (the fleet's day drops out of it a month on).
    const recent = Date.now() - Date.parse('2026-11-20') < 30 * 86_400_000;
    assert.deepEqual(counts(reply.last_update), recent ? [['2026-11-20T00:00:00Z', 5]] : []);
    assert.deepEqual(counts(reply.digsig_result), [['Signed', 2], ['Unsigned', 1]]);
    assert.deepEqual(counts(reply.company_name), [['Microsoft Corporation', 2], ['Contoso Ltd', 1]]);
    assert.deepEqual(counts(reply.is_64bit), [['true', 1]]);
    assert.deepEqual(counts(reply.sensor_id), [['1', 3], ['2', 2]]);
    assert.deepEqual(reply.process_id, [], 'Vigil keeps no 64-bit process ids to list');
  });

  it('counts only the matches, processes when grouped, with shares of the matches', async () => {
    const grouped = await facets(['username', 'domain', 'netconn_count'], { q: 'hostname:win-acct-01', 'cb.group': 'id' });
    assert.deepEqual(counts(grouped.username), [['CORP\\Alice', 2], ['CORP\\alice', 1]]);
    assert.deepEqual(grouped.domain, [
      { name: 'example.com', value: 1, percent: 33, ratio: 33.3 }, { name: 'update.microsoft.com', value: 1, percent: 33, ratio: 33.3 },
    ]);
    assert.deepEqual(counts(grouped.netconn_count), [['1', 2], ['0', 1]]);
    const byEvent = await facets(['username', 'ipport'], { q: 'domain:com' });
    assert.deepEqual(counts(byEvent.username), [['CORP\\alice', 1], ['CORP\\Alice', 1]]);
    assert.deepEqual(counts(byEvent.ipport), [['443', 2]]);
  });

  it('still refuses a field that does not exist, and joined binary fields, with the 400 body', async () => {
    for (const field of ['nope', 'digsig_result_parent', 'watchlist_1']) {
      const response = await test.app.inject({ url: `/api/v1/process?facet=true&facet.field=${field}`, headers: { 'x-auth-token': test.adminToken } });
      assert.equal(response.statusCode, 400, field);
      assert.match(response.json().message, new RegExp(`Unknown facet field ${field}`, 'u'));
    }
  });
});
