/** The contract of BansStore, run against every dialect (bans.store.test.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import { SqlSensorsStore } from '../sensors/sensors.store.js';
import { SqlBansStore, type BanQuery } from './bans.store.js';

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const C = 'c'.repeat(32);
const stamp = (atMs: number) => ({ userId: 1, username: 'admin', atMs });
const ALL: BanQuery = { sort: 'timestamp', ascending: true, start: 0, count: 100 };

export function bansStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('creates a ban once, audited, and reads it back', async () => {
    const bans = new SqlBansStore(await fresh());
    assert.equal(await bans.create(A, { text: 'bad', enabled: true }, stamp(1000)), true);
    assert.equal(await bans.create(A, { text: 'again', enabled: true }, stamp(2000)), false);
    assert.deepEqual(await bans.get(A), {
      md5: A, text: 'bad', enabled: true, created: stamp(1000), blockCount: 0,
      lastBlockMs: null, lastBlockSensorId: null, lastBlockHostname: null,
      audit: [{ ...stamp(1000), text: 'bad', enabled: true }],
    });
    assert.equal(await bans.get(B), undefined);
  });

  it('changes a ban only when it exists and, if asked, only in the state given', async () => {
    const bans = new SqlBansStore(await fresh());
    await bans.create(A, { text: 'bad', enabled: true }, stamp(1000));
    assert.equal(await bans.change(A, { enabled: false, text: '' }, stamp(2000), false), false);
    assert.equal(await bans.change(A, { enabled: false, text: '' }, stamp(2000), true), true);
    assert.equal(await bans.change(A, { text: 'noted' }, stamp(3000)), true);
    assert.equal(await bans.change(B, { text: 'x' }, stamp(3000)), false);
    const ban = (await bans.get(A))!;
    assert.deepEqual([ban.text, ban.enabled, ban.created.atMs], ['noted', false, 1000]);
    assert.deepEqual(ban.audit.map((entry) => [entry.atMs, entry.text, entry.enabled]), [[1000, 'bad', true], [2000, '', false], [3000, 'noted', false]]);
  });

  it('lists by the column asked, paged, filtered by md5 and state', async () => {
    const bans = new SqlBansStore(await fresh());
    await bans.create(B, { text: 'b', enabled: true }, stamp(1000));
    await bans.create(A, { text: 'a', enabled: false }, stamp(2000));
    await bans.create(C, { text: 'c', enabled: true }, stamp(3000));
    const md5s = async (query: Partial<BanQuery>) => (await bans.list({ ...ALL, ...query })).map((ban) => ban.md5);
    assert.deepEqual(await md5s({}), [B, A, C]);
    assert.deepEqual(await md5s({ ascending: false }), [C, A, B]);
    assert.deepEqual(await md5s({ sort: 'md5hash' }), [A, B, C]);
    assert.deepEqual(await md5s({ start: 1, count: 1 }), [A]);
    assert.deepEqual(await md5s({ enabled: true }), [B, C]);
    assert.deepEqual(await md5s({ md5: A, enabled: false }), [A]);
    assert.equal((await bans.list(ALL))[1]!.audit.length, 1);
  });

  it('moves the list version with each change of the enabled set, and tells the changes since a version', async () => {
    const bans = new SqlBansStore(await fresh());
    assert.deepEqual(await bans.listState(0), { version: 0, enabled: 0, changed: 0 });
    assert.equal(await bans.listVersion(), 0);
    await bans.create(A, { text: '', enabled: true }, stamp(1));
    await bans.create(B, { text: '', enabled: true }, stamp(2));
    await bans.create(C, { text: '', enabled: false }, stamp(3)); // never on the list
    await bans.change(A, { text: 'reworded' }, stamp(4));
    assert.deepEqual(await bans.listState(0), { version: 2, enabled: 2, changed: 2 });
    await bans.change(A, { enabled: false }, stamp(5));
    assert.deepEqual(await bans.listState(2), { version: 3, enabled: 1, changed: 1 });
    assert.deepEqual(await bans.enabledBans(), { version: 3, md5s: [B] });
    assert.deepEqual(await bans.changesSince(1), { version: 3, changes: [{ md5: B, enabled: true }, { md5: A, enabled: false }] });
    assert.deepEqual(await bans.changesSince(3), { version: 3, changes: [] });
    assert.equal(await bans.listVersion(), 3);
  });

  it('adds blocks to their bans, the latest block naming the last time and host', async () => {
    const bans = new SqlBansStore(await fresh());
    await bans.create(A, { text: '', enabled: true }, stamp(1));
    await bans.recordBlocks([
      { md5: A, count: 2, lastMs: 5000, sensorId: 7, hostname: 'seven' },
      { md5: B, count: 1, lastMs: 6000, sensorId: 7, hostname: 'seven' },
    ]);
    await bans.recordBlocks([{ md5: A, count: 1, lastMs: 4000, sensorId: 8, hostname: 'eight' }]);
    let ban = (await bans.get(A))!;
    assert.deepEqual([ban.blockCount, ban.lastBlockMs, ban.lastBlockSensorId, ban.lastBlockHostname], [3, 5000, 7, 'seven']);
    await bans.recordBlocks([{ md5: A, count: 1, lastMs: 9000, sensorId: 8, hostname: 'eight' }]);
    ban = (await bans.get(A))!;
    assert.deepEqual([ban.blockCount, ban.lastBlockMs, ban.lastBlockSensorId, ban.lastBlockHostname], [4, 9000, 8, 'eight']);
    assert.equal(await bans.get(B), undefined);
  });

  it('keeps each sensor\'s acknowledged version and pending instruction', async () => {
    const db = await fresh();
    const bans = new SqlBansStore(db);
    const sensor = await new SqlSensorsStore(db).register({
      groupId: 1, secretHash: 'x', osType: 'windows', hostType: 'workstation', registrationMs: 0, computerName: 'host',
      computerDnsName: 'host', computerSid: '', osEnvironmentDisplayString: '', buildVersionString: '006.001.002.71109', buildId: 0,
      bootId: '1', networkAdapters: '', physicalMemorySize: 0, systemvolumeTotalSize: 0, systemvolumeFreeSize: 0,
    });
    assert.deepEqual(await bans.sensorBanList(sensor.id), { ackedVersion: 0 });
    await bans.saveSensorBanList(sensor.id, { ackedVersion: 0, pending: { instructionId: 12, version: 3 } });
    assert.deepEqual(await bans.sensorBanList(sensor.id), { ackedVersion: 0, pending: { instructionId: 12, version: 3 } });
    await bans.saveSensorBanList(sensor.id, { ackedVersion: 3 });
    assert.deepEqual(await bans.sensorBanList(sensor.id), { ackedVersion: 3, pending: undefined });
  });
}
