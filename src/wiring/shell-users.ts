/**
 * The users service for `vigil user` and `vigil token`, on the configured database (SQLite or
 * PostgreSQL) without the rest of the server: one user's token needs no event writer, search
 * threads or detection started. The token key is the one the dialect keeps (tokenKeyFor), so a
 * token printed here is the one every server accepts.
 */
import type { Config } from '../config/schema.js';
import type { SqlDatabase } from '../db/database.js';
import { openConfiguredDatabase } from '../db/open.js';
import { openSecretBox, secretKeyPath } from '../db/secrets/secret-key.js';
import { SqlTeamsStore } from '../modules/teams/teams.store.js';
import { loadOrCreateSharedTokenKey, loadOrCreateTokenKey } from '../modules/users/token-key.js';
import { UsersService } from '../modules/users/users.service.js';
import { SqlUsersStore } from '../modules/users/users.store.js';

export interface ShellUsers {
  users: UsersService;
  close(): Promise<void>;
}

export async function openShellUsers(config: Config): Promise<ShellUsers> {
  const { db } = await openConfiguredDatabase(config);
  try {
    const users = new UsersService(new SqlUsersStore(db), new SqlTeamsStore(db), await tokenKeyFor(config, db));
    return { users, close: () => db.close() };
  } catch (error) {
    await db.close();
    throw error;
  }
}

/**
 * The API token key: the data dir's file on the embedded store; on PostgreSQL the one sealed in the
 * database, opened with the secret key file every server is given (docs/adr/0020-shared-keys.md).
 */
export async function tokenKeyFor(config: Config, db: SqlDatabase): Promise<Buffer> {
  if (config.databaseUrl === undefined) return loadOrCreateTokenKey(config.dataDir);
  const secrets = await openSecretBox(db, secretKeyPath(config.dataDir, config.secretKeyFile));
  return loadOrCreateSharedTokenKey(db, secrets);
}
