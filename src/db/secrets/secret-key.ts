/**
 * The key file of the SecretBox and its check against the database. The file holds 32 random
 * bytes in hex, created 0600 on first start (by default `<dataDir>/secrets.key`; the
 * secretKeyFile setting keeps it elsewhere, e.g. off the volume that is backed up with the
 * database). The database keeps one value sealed under the key, so a start with another key, or
 * without the file once secrets were sealed, stops with a clear message instead of reading garbage
 * or sealing new secrets under a second key.
 */
import { join } from 'node:path';
import type { SqlDatabase } from '../database.js';
import { createKeyFile, KeyFileError, readKeyFile } from '../key-file.js';
import { SecretBox, SecretUnreadableError } from './secret-box.js';

export const DEFAULT_SECRET_KEY_FILE = 'secrets.key';
const KEY_CHECK = 'vigil secret key check';
const SECRET_KEY = 'secret key';

/** The key file is unusable, or is not the one the database's secrets were sealed with. */
export class SecretKeyError extends KeyFileError {}

export function secretKeyPath(dataDir: string, secretKeyFile: string | undefined): string {
  return secretKeyFile ?? join(dataDir, DEFAULT_SECRET_KEY_FILE);
}

/** Reads the key file (creating it when the database has sealed nothing yet) and checks it opens the database's secrets. */
export async function openSecretBox(db: SqlDatabase, keyFile: string): Promise<SecretBox> {
  const check = await db.get<{ sealed: string }>('SELECT sealed FROM secret_key_check WHERE id = 1');
  let key = readKeyFile(keyFile, SECRET_KEY);
  if (!key) {
    if (check) {
      throw new SecretKeyError(
        `The secret key file ${keyFile} is missing, but this database holds secrets sealed with it. Restore that ` +
          'file, or point --secret-key-file (VIGIL_SECRET_KEY_FILE) at it: every Vigil server and command on one database needs the same key.',
      );
    }
    key = createKeyFile(keyFile, SECRET_KEY);
  }
  const box = new SecretBox(key);
  let stored = check;
  if (!stored) {
    // DO NOTHING: a concurrent first start (`vigil token` beside `vigil serve`) may have written it first.
    await db.run('INSERT INTO secret_key_check (id, sealed) VALUES (1, ?) ON CONFLICT (id) DO NOTHING', [box.seal(KEY_CHECK, 'key-check')]);
    stored = (await db.get<{ sealed: string }>('SELECT sealed FROM secret_key_check WHERE id = 1'))!;
  }
  try {
    if (box.open(stored.sealed, 'key-check') === KEY_CHECK) return box;
  } catch (error) {
    if (!(error instanceof SecretUnreadableError)) throw error;
  }
  throw new SecretKeyError(
    `The secret key file ${keyFile} is not the key this database's secrets were sealed with. Point ` +
      '--secret-key-file (VIGIL_SECRET_KEY_FILE) at the right one.',
  );
}
