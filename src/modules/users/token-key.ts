/**
 * The key API tokens are derived from (see credentials.ts). Losing it invalidates every token;
 * `vigil token` then prints fresh ones.
 *
 * On the embedded store it is a file in the data dir, readable by the owner only, created on
 * first start. On PostgreSQL every server must derive the same tokens, so the key is kept in the
 * database, sealed under the secret key that every server is given (docs/adr/0020-shared-keys.md):
 * the database alone still reveals no token.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { SqlDatabase } from '../../db/database.js';
import { createKeyFile, readKeyFile } from '../../db/key-file.js';
import type { SecretBox } from '../../db/secrets/secret-box.js';

export const TOKEN_KEY_FILE = 'token.key';
const SEALED_TOKEN_KEY = 'token-key';

export function loadOrCreateTokenKey(dataDir: string): Buffer {
  const file = join(dataDir, TOKEN_KEY_FILE);
  return readKeyFile(file, 'API token key') ?? createKeyFile(file, 'API token key');
}

/** The key in the database's `sealed_keys`, drawn and stored by the first server or command that needs it. */
export async function loadOrCreateSharedTokenKey(db: SqlDatabase, secrets: SecretBox): Promise<Buffer> {
  const read = () => db.get<{ sealed: string }>('SELECT sealed FROM sealed_keys WHERE name = ?', [SEALED_TOKEN_KEY]);
  let stored = await read();
  if (!stored) {
    const drawn = secrets.seal(randomBytes(32).toString('hex'), 'token-key');
    // DO NOTHING: servers starting together each draw a key; the first one stored is everyone's.
    await db.run('INSERT INTO sealed_keys (name, sealed) VALUES (?, ?) ON CONFLICT (name) DO NOTHING', [SEALED_TOKEN_KEY, drawn]);
    stored = (await read())!;
  }
  return Buffer.from(secrets.open(stored.sealed, 'token-key'), 'hex');
}
