/**
 * Ingress filters written on one server apply to the ingest of another on the same database within
 * the reload period, on real databases with two "servers" (two pools on one PostgreSQL database;
 * two connections to one SQLite file), each with its own service and cache.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { Principal } from '../../domain/permissions.js';
import { IngressHitRates } from '../../ingest/ingress-filter-metrics.js';
import { dialects } from '../../../test/support/dialects.js';
import { twoServers, type TwoServers } from '../../../test/support/two-servers.js';
import { IngressFiltersService } from './ingress-filters.service.js';
import { SqlIngressFiltersStore } from './ingress-filters.store.js';

const ADMIN: Principal = { userId: 1, username: 'admin', globalAdmin: true, groupAccess: new Map() };

for (const { name } of dialects) {
  describe(`ingress filters across servers on ${name}`, () => {
    let servers: TwoServers;
    before(async () => {
      servers = await twoServers(name);
    });
    after(() => servers.close());

    it('reaches the other server\'s compiled filters within its reload period', async () => {
      const reloadMs = 200;
      const a = new IngressFiltersService(new SqlIngressFiltersStore(servers.a), new IngressHitRates(), reloadMs);
      const b = new IngressFiltersService(new SqlIngressFiltersStore(servers.b), new IngressHitRates(), reloadMs);
      assert.deepEqual(await b.compiled(), [], 'b has loaded its filters: none yet');
      const [id] = await a.create(ADMIN, [{ name: 'Nightly backups', path_filters: ['backup.exe'] }]);
      await sleep(reloadMs);
      assert.deepEqual((await b.compiled()).map((filter) => filter.id), [id]);
    });
  });
}
