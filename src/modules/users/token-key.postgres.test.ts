/** The shared token key on a real PostgreSQL: servers that find none at the same moment end up with one. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { dropTestDatabase, freshTestDatabase } from '../../../test/support/postgres.js';
import { PostgresDatabase } from '../../db/dialects/postgres.js';
import { postgresMigrations } from '../../db/migrations/postgres.js';
import { migrateUnderLock } from '../../db/open.js';
import { SecretBox } from '../../db/secrets/secret-box.js';
import { loadOrCreateSharedTokenKey } from './token-key.js';

describe('the shared token key', () => {
  it('is drawn once when several servers ask for it together, and is kept sealed', async () => {
    const fresh = await freshTestDatabase('migrated', async (url) => {
      const db = PostgresDatabase.open(url);
      await migrateUnderLock(db, postgresMigrations).finally(() => db.close());
    });
    const servers = Array.from({ length: 8 }, () => PostgresDatabase.open(fresh.url));
    try {
      const secrets = new SecretBox(randomBytes(32));
      // Connected first, so that the servers' reads meet rather than trail their connection setup.
      await Promise.all(servers.map((db) => db.get('SELECT 1')));
      const keys = await Promise.all(servers.map((db) => loadOrCreateSharedTokenKey(db, secrets)));
      for (const key of keys) assert.deepEqual(key, keys[0]);
      const stored = await servers[0]!.all<{ sealed: string }>('SELECT sealed FROM sealed_keys');
      assert.equal(stored.length, 1);
      assert.ok(!stored[0]!.sealed.includes(keys[0]!.toString('hex')), 'the database does not hold the key in plain');
      assert.deepEqual(await loadOrCreateSharedTokenKey(servers[1]!, secrets), keys[0], 'a later start reads the same key');
    } finally {
      await Promise.all(servers.map((db) => db.close()));
      await dropTestDatabase(fresh.name);
    }
  });
});
