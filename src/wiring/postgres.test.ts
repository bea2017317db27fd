/**
 * The PostgreSQL wiring's storage maintenance: the local disk of one Vigil server says nothing of
 * the database's, so however full it is, no partition every server shares is deleted for it (on
 * SQLite the same settings delete the oldest warm partition, storage-maintenance.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, startTestApp, type TestApp } from '../../test/support/app.js';
import { dropTestDatabase } from '../../test/support/postgres.js';
import { freshMigratedDatabase } from '../../test/support/postgres-migrated.js';

describe('storage maintenance on PostgreSQL', () => {
  let test: TestApp;
  let database: { name: string; url: string };
  before(async () => {
    database = await freshMigratedDatabase();
    // Any disk in use at all passes these shares.
    test = await startTestApp({ databaseUrl: database.url, storageMaxDiskShare: 0.000_001, storageWarnDiskShare: 0.000_001 });
  });
  after(async () => {
    await test.close();
    await dropTestDatabase(database.name);
  });

  it('deletes no partition and warns of nothing for the server\'s own disk', async () => {
    const rollover = await test.app.inject({
      method: 'POST', url: '/api/v1/storage/events/new_partition', headers: { ...as(test.adminToken), 'content-type': 'application/json' }, payload: 'null',
    });
    assert.equal(rollover.statusCode, 200, rollover.body);
    const before = (await test.app.inject({ url: '/api/v1/storage/events/partition', headers: as(test.adminToken) })).json() as Record<string, unknown>;
    assert.equal(Object.keys(before).length, 2, JSON.stringify(before));
    await test.container.storage.check();
    const after = (await test.app.inject({ url: '/api/v1/storage/events/partition', headers: as(test.adminToken) })).json() as Record<string, unknown>;
    assert.deepEqual(Object.keys(after), Object.keys(before));
    assert.equal(test.container.storage.storageWarning(), null);
  });
});
