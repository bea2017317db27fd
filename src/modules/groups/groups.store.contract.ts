/** The contract of GroupsStore, run against every dialect (groups.store.test.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import { ConflictError, InvalidRequestError } from '../../domain/errors.js';
import { SqlTeamsStore } from '../teams/teams.store.js';
import { SqlGroupsStore, type NewGroup } from './groups.store.js';

const group = (name: string, extra: Partial<NewGroup> = {}): NewGroup => ({
  name, siteId: 1, settings: {}, teamGrants: [], ...extra,
});

export function groupsStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('holds the seeded Default Group in the Default Site, with nothing stored and no hosts', async () => {
    const groups = new SqlGroupsStore(await fresh());
    assert.deepEqual(await groups.get(1), {
      id: 1, name: 'Default Group', siteId: 1, settings: {}, numberOfHosts: 0, teamAccess: [],
    });
  });

  it('creates a group and reads its settings back as written', async () => {
    const groups = new SqlGroupsStore(await fresh());
    const settings = {
      sensorbackend_server: 'https://edr.example.com:443',
      datastore_server: null,
      alert_criticality: 5,
      banning_enabled: false,
      quota_eventlog_bytes: 2 ** 40,
      event_exclusions: [{ eventsToIgnore: ['netconn' as const], paths: ['c:\\windows\\system32\\svchost.exe'] }],
    };
    const created = await groups.create(group('Servers', { settings }));
    assert.equal(created.name, 'Servers');
    assert.equal(created.siteId, 1);
    assert.deepEqual(created.settings, settings);
    assert.deepEqual(await groups.get(created.id), created);
    assert.equal(await groups.get(created.id + 1000), undefined);
    assert.deepEqual(await groups.settings(created.id), settings);
    assert.equal(await groups.settings(created.id + 1000), undefined);
  });

  it('refuses a taken name, an unknown site or an unknown team, leaving nothing behind', async () => {
    const groups = new SqlGroupsStore(await fresh());
    await groups.create(group('Servers'));
    await assert.rejects(groups.create(group('Servers')), ConflictError);
    await assert.rejects(groups.create(group('Nowhere', { siteId: 4242 })), (error: Error) =>
      error instanceof InvalidRequestError && /site_id/.test(error.message));
    await assert.rejects(groups.create(group('Ghosts', { teamGrants: [{ teamId: 4242, accessCategory: 'Viewer' }] })),
      (error: Error) => error instanceof InvalidRequestError && /team_access/.test(error.message));
    assert.deepEqual((await groups.list()).map((g) => g.name), ['Default Group', 'Servers']);
  });

  it('merges changed settings over the stored ones and keeps what was not given', async () => {
    const groups = new SqlGroupsStore(await fresh());
    const created = await groups.create(group('Servers', { settings: { alert_criticality: 4, vdi_enabled: true } }));
    const updated = await groups.update(created.id, { name: 'Web servers', settings: { alert_criticality: 2 } });
    assert.equal(updated?.name, 'Web servers');
    assert.deepEqual(updated?.settings, { alert_criticality: 2, vdi_enabled: true });
    const unchanged = await groups.update(created.id, {});
    assert.deepEqual(unchanged, updated);
    assert.equal(await groups.update(created.id + 1000, { name: 'x' }), undefined);
  });

  it('moves a group between sites, refusing an unknown site or a taken name without changing it', async () => {
    const db = await fresh();
    const groups = new SqlGroupsStore(db);
    const site = await db.get<{ id: number }>('INSERT INTO sites (name) VALUES (?) RETURNING id', ['Branch']);
    const created = await groups.create(group('Servers'));
    assert.equal((await groups.update(created.id, { siteId: site!.id }))?.siteId, site!.id);
    await assert.rejects(groups.update(created.id, { siteId: 4242, name: 'Moved' }), (error: Error) =>
      error instanceof InvalidRequestError && /site_id/.test(error.message));
    await assert.rejects(groups.update(created.id, { name: 'Default Group' }), ConflictError);
    const after = await groups.get(created.id);
    assert.equal(after?.siteId, site!.id);
    assert.equal(after?.name, 'Servers');
  });

  it('lists every team\'s access, sets it for the teams listed only, and agrees with the teams store', async () => {
    const db = await fresh();
    const groups = new SqlGroupsStore(db);
    const teams = new SqlTeamsStore(db);
    const analysts = await teams.create('Analysts', []);
    const admins = await teams.create('Admins', []);
    const created = await groups.create(group('Servers', { teamGrants: [{ teamId: admins.id, accessCategory: 'Administrator' }] }));
    assert.deepEqual(created.teamAccess, [
      { teamId: analysts.id, teamName: 'Analysts', accessCategory: 'No Access' },
      { teamId: admins.id, teamName: 'Admins', accessCategory: 'Administrator' },
    ]);

    const granted = await groups.update(created.id, { teamGrants: [{ teamId: analysts.id, accessCategory: 'Viewer' }] });
    assert.deepEqual(granted?.teamAccess.map((a) => a.accessCategory), ['Viewer', 'Administrator']);
    const seenByTeam = (await teams.get(analysts.id))?.groupAccess.find((a) => a.groupId === created.id);
    assert.equal(seenByTeam?.accessCategory, 'Viewer');

    const revoked = await groups.update(created.id, { teamGrants: [{ teamId: admins.id, accessCategory: 'No Access' }] });
    assert.deepEqual(revoked?.teamAccess.map((a) => a.accessCategory), ['Viewer', 'No Access']);
    const listed = await groups.list();
    assert.deepEqual(listed.map((g) => g.teamAccess.map((a) => a.accessCategory)), [['No Access', 'No Access'], ['Viewer', 'No Access']]);
  });

  it('lists groups by id and deletes them with the access teams had to them', async () => {
    const db = await fresh();
    const groups = new SqlGroupsStore(db);
    const teams = new SqlTeamsStore(db);
    const a = await groups.create(group('A'));
    const b = await groups.create(group('B'));
    const team = await teams.create('Analysts', [{ groupId: a.id, accessCategory: 'Viewer' }]);
    assert.deepEqual((await groups.list()).map((g) => g.id), [1, a.id, b.id]);
    assert.equal(await groups.delete(a.id), true);
    assert.equal(await groups.delete(a.id), false);
    assert.equal(await groups.get(a.id), undefined);
    assert.deepEqual((await groups.list()).map((g) => g.id), [1, b.id]);
    assert.deepEqual((await teams.get(team.id))?.groupAccess.map((access) => access.groupId), [1, b.id]);
  });
}
