/** The contract of SitesStore, run against every dialect (sites.store.test.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import { ConflictError } from '../../domain/errors.js';
import { SqlGroupsStore } from '../groups/groups.store.js';
import { SqlSitesStore } from './sites.store.js';

export function sitesStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('holds the seeded Default Site with the Default Group in it', async () => {
    const sites = new SqlSitesStore(await fresh());
    assert.deepEqual(await sites.get(1), { id: 1, name: 'Default Site', groupIds: [1] });
    assert.deepEqual(await sites.list(), [{ id: 1, name: 'Default Site', groupIds: [1] }]);
  });

  it('creates sites, lists them by id, and refuses a taken name', async () => {
    const sites = new SqlSitesStore(await fresh());
    const branch = await sites.create('Branch');
    assert.deepEqual(branch, { id: branch.id, name: 'Branch', groupIds: [] });
    assert.deepEqual(await sites.get(branch.id), branch);
    assert.equal(await sites.get(branch.id + 1000), undefined);
    await assert.rejects(sites.create('Branch'), ConflictError);
    assert.deepEqual((await sites.list()).map((s) => s.name), ['Default Site', 'Branch']);
  });

  it('renames a site, refusing a taken name', async () => {
    const sites = new SqlSitesStore(await fresh());
    const branch = await sites.create('Branch');
    assert.deepEqual(await sites.rename(branch.id, 'Head office'), { id: branch.id, name: 'Head office', groupIds: [] });
    await assert.rejects(sites.rename(branch.id, 'Default Site'), ConflictError);
    assert.equal((await sites.get(branch.id))?.name, 'Head office');
    assert.equal(await sites.rename(branch.id + 1000, 'Elsewhere'), undefined);
  });

  it('tracks the groups in each site', async () => {
    const db = await fresh();
    const sites = new SqlSitesStore(db);
    const groups = new SqlGroupsStore(db);
    const branch = await sites.create('Branch');
    const a = await groups.create({ name: 'A', siteId: branch.id, settings: {}, teamGrants: [] });
    const b = await groups.create({ name: 'B', siteId: branch.id, settings: {}, teamGrants: [] });
    assert.deepEqual((await sites.get(branch.id))?.groupIds, [a.id, b.id]);
    await groups.update(1, { siteId: branch.id });
    await groups.update(b.id, { siteId: 1 });
    assert.deepEqual((await sites.list()).map((s) => s.groupIds), [[b.id], [1, a.id]]);
  });

  it('deletes only a site no group is in', async () => {
    const db = await fresh();
    const sites = new SqlSitesStore(db);
    const groups = new SqlGroupsStore(db);
    const branch = await sites.create('Branch');
    const group = await groups.create({ name: 'A', siteId: branch.id, settings: {}, teamGrants: [] });
    await assert.rejects(sites.delete(branch.id), ConflictError);
    assert.equal((await sites.get(branch.id))?.name, 'Branch');
    await groups.delete(group.id);
    assert.equal(await sites.delete(branch.id), true);
    assert.equal(await sites.delete(branch.id), false);
    assert.equal(await sites.get(branch.id), undefined);
  });
}
