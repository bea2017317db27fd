/** The contract of IngestKeysStore, run against every dialect (ingest-keys.store.test.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import { testSecretBox } from '../../../test/support/secrets.js';
import { SqlIngestKeysStore } from './ingest-keys.store.js';

export function ingestKeysStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('finds a key by its secret until it is revoked, and keeps the revocation on record', async () => {
    const keys = new SqlIngestKeysStore(await fresh(), testSecretBox());
    const created = await keys.create({ groupId: 1, name: 'nxlog', secret: 'vik_one', createdBy: 'admin', createdMs: 100 });
    await keys.create({ groupId: 1, name: 'beats', secret: 'vik_two', createdBy: 'admin', createdMs: 200 });
    assert.deepEqual(await keys.find('vik_one'), { keyId: created.id, groupId: 1 });
    assert.equal(await keys.find('vik_three'), undefined);
    assert.equal(await keys.revoke(2, created.id, 300), false, 'only through its own group');
    assert.equal(await keys.revoke(1, created.id, 300), true);
    assert.equal(await keys.revoke(1, created.id, 400), false, 'revoked once');
    assert.equal(await keys.find('vik_one'), undefined);
    assert.deepEqual((await keys.list(1)).map((k) => [k.name, k.revokedMs]), [['nxlog', 300], ['beats', null]]);
    assert.deepEqual(await keys.list(2), []);
  });

  it('refuses a key for a group that does not exist', async () => {
    const keys = new SqlIngestKeysStore(await fresh(), testSecretBox());
    await assert.rejects(keys.create({ groupId: 999, name: '', secret: 'vik_x', createdBy: 'admin', createdMs: 1 }));
  });
}
