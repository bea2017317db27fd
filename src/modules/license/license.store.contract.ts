/** The contract of LicenseStore, run against every dialect (license.store.test.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import { SqlLicenseStore } from './license.store.js';

export function licenseStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('holds a random server token from the start', async () => {
    const first = await new SqlLicenseStore(await fresh()).get();
    const second = await new SqlLicenseStore(await fresh()).get();
    assert.match(first.serverToken, /^[0-9a-f]{32}$/);
    assert.notEqual(first.serverToken, second.serverToken, 'each server its own token');
  });

  it('keeps its token', async () => {
    const license = new SqlLicenseStore(await fresh());
    assert.deepEqual(await license.get(), await license.get());
  });
}
