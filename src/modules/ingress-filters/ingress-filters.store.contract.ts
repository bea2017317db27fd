/** The contract of IngressFiltersStore, run against every dialect (ingress-filters.store.test.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import { ConflictError } from '../../domain/errors.js';
import { INGRESS_FILTER_DEFAULTS } from './ingress-filters.defaults.js';
import type { IngressFilterSettings } from './ingress-filters.schemas.js';
import { SqlIngressFiltersStore, type NewIngressFilter } from './ingress-filters.store.js';

const filter = (id: string, settings: Partial<IngressFilterSettings> = {}): NewIngressFilter => ({
  id, settings: { ...INGRESS_FILTER_DEFAULTS, name: id, ...settings },
});
const CREATED = { userId: 1, at: '2025-03-01T10:00:00.000Z' };
const CHANGED = { userId: 2, at: '2025-03-02T11:30:00.000Z' };

export function ingressFiltersStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('creates filters and reads every setting back as written, with who and when', async () => {
    const filters = new SqlIngressFiltersStore(await fresh());
    const settings = {
      ...INGRESS_FILTER_DEFAULTS,
      name: 'Backup agent', description: 'nightly backups', enabled: false, priority: -3, global: false,
      group_ids: [1], sensor_ids: [4, 5], os_mask: 1, path_filters: ['**/backup.exe', 'rxi|acme\\\\.*'],
      descendant_filtering_level: -1, filter_all_events: false, netconn_filters: ['backup.acme.com'],
      filter_on_sensor: true, track_metrics: false,
    };
    const [created] = await filters.create([{ id: 'backup-agent', settings }], CREATED);
    assert.deepEqual(created, {
      id: 'backup-agent', settings, createdAt: CREATED.at, modifiedAt: CREATED.at, createdBy: 1, modifiedBy: 1,
    });
    assert.deepEqual(await filters.get('backup-agent'), created);
    assert.equal(await filters.get('Backup-Agent'), undefined);
    assert.equal(await filters.get('nope'), undefined);
  });

  it('creates several at once in the order given, and none when an id is taken or repeated', async () => {
    const filters = new SqlIngressFiltersStore(await fresh());
    const created = await filters.create([filter('b'), filter('a'), filter('c')], CREATED);
    assert.deepEqual(created.map((f) => f.id), ['b', 'a', 'c']);
    await assert.rejects(filters.create([filter('d'), filter('a')], CREATED), ConflictError);
    await assert.rejects(filters.create([filter('e'), filter('e')], CREATED), ConflictError);
    assert.deepEqual((await filters.list()).map((f) => f.id), ['b', 'a', 'c']);
  });

  it('merges changes over the stored settings and stamps the change', async () => {
    const filters = new SqlIngressFiltersStore(await fresh());
    await filters.create([filter('f', { priority: 5, md5_filters: ['5a18f00ab9330ac7539675f3f326cf11'] })], CREATED);
    const updated = await filters.update('f', { name: 'renamed', enabled: false }, CHANGED);
    assert.deepEqual(updated?.settings, {
      ...INGRESS_FILTER_DEFAULTS, name: 'renamed', enabled: false, priority: 5, md5_filters: ['5a18f00ab9330ac7539675f3f326cf11'],
    });
    assert.equal(updated?.createdAt, CREATED.at);
    assert.equal(updated?.createdBy, 1);
    assert.equal(updated?.modifiedAt, CHANGED.at);
    assert.equal(updated?.modifiedBy, 2);
    assert.deepEqual(await filters.get('f'), updated);
    assert.equal(await filters.update('nope', { name: 'x' }, CHANGED), undefined);
  });

  it('reads a filter stored before a field existed with that field\'s default', async () => {
    const db = await fresh();
    await db.run(
      'INSERT INTO ingress_filters (id, settings, created_at, created_by, modified_at, modified_by) VALUES (?, ?, ?, ?, ?, ?)',
      ['old', JSON.stringify({ name: 'old', priority: 2 }), CREATED.at, 1, CREATED.at, 1],
    );
    const old = await new SqlIngressFiltersStore(db).get('old');
    assert.deepEqual(old?.settings, { ...INGRESS_FILTER_DEFAULTS, name: 'old', priority: 2 });
  });

  it('lists filters oldest first and deletes them', async () => {
    const filters = new SqlIngressFiltersStore(await fresh());
    await filters.create([filter('x')], CREATED);
    await filters.create([filter('y', { priority: 100 })], CREATED);
    await filters.update('x', { priority: 1 }, CHANGED);
    assert.deepEqual((await filters.list()).map((f) => f.id), ['x', 'y']);
    assert.equal(await filters.delete('x'), true);
    assert.equal(await filters.delete('x'), false);
    assert.equal(await filters.get('x'), undefined);
    assert.deepEqual((await filters.list()).map((f) => f.id), ['y']);
    await filters.create([filter('x')], CREATED);
    assert.deepEqual((await filters.list()).map((f) => f.id), ['y', 'x']);
  });
}
