/**
 * API tokens on PostgreSQL work on every server: the token key is kept in the database, sealed
 * under the secret key every server is given, so a token issued through one connection pool (a
 * server, `vigil token`) verifies through any other, whatever its data dir (docs/adr/0020-shared-keys.md).
 */
import assert from 'node:assert/strict';
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { dropTestDatabase, freshTestDatabase } from '../../test/support/postgres.js';
import { tempDir } from '../../test/support/temp.js';
import { loadConfig } from '../config/load.js';
import { PostgresDatabase } from '../db/dialects/postgres.js';
import { postgresMigrations } from '../db/migrations/postgres.js';
import { migrateUnderLock } from '../db/open.js';
import { SecretKeyError } from '../db/secrets/secret-key.js';
import { openShellUsers } from './shell-users.js';

async function migratedDatabase(): Promise<{ name: string; url: string }> {
  return freshTestDatabase('migrated', async (url) => {
    const db = PostgresDatabase.open(url);
    try {
      await migrateUnderLock(db, postgresMigrations);
    } finally {
      await db.close();
    }
  });
}

describe('the token key on PostgreSQL', () => {
  const dirs: string[] = [];
  const databases: string[] = [];
  /** A server of its own: its own data dir, the shared secret key file copied into it. */
  const serverDir = (keyFrom?: string): string => {
    const dir = tempDir('vigil-pg-server-');
    dirs.push(dir);
    if (keyFrom) copyFileSync(join(keyFrom, 'secrets.key'), join(dir, 'secrets.key'));
    return dir;
  };
  let url: string;
  before(async () => {
    const fresh = await migratedDatabase();
    databases.push(fresh.name);
    url = fresh.url;
  });
  after(async () => {
    for (const name of databases) await dropTestDatabase(name);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('verifies a token made through one server on another with its own data dir', async () => {
    const firstDir = serverDir();
    const first = await openShellUsers(loadConfig({ databaseUrl: url, dataDir: firstDir }));
    const second = await openShellUsers(loadConfig({ databaseUrl: url, dataDir: serverDir(firstDir) }));
    try {
      const token = await first.users.addFromShell({ username: 'alice', globalAdmin: true });
      assert.equal((await second.users.authenticate(token)).username, 'alice');
      assert.equal(await second.users.tokenFromShell('alice'), token, 'the second server shows the same token');
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('refuses a server given another secret key, naming the file', async () => {
    const stranger = serverDir();
    await assert.rejects(
      openShellUsers(loadConfig({ databaseUrl: url, dataDir: stranger })),
      (error: Error) => error instanceof SecretKeyError && error.message.includes(join(stranger, 'secrets.key')),
    );
  });
});
