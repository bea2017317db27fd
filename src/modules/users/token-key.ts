/**
 * The key API tokens are derived from (see credentials.ts). Created on first start in the data
 * dir, readable by the owner only. Losing it invalidates every token; `vigil token` then prints
 * fresh ones.
 */
import { join } from 'node:path';
import { createKeyFile, readKeyFile } from '../../db/key-file.js';

export const TOKEN_KEY_FILE = 'token.key';

export function loadOrCreateTokenKey(dataDir: string): Buffer {
  const file = join(dataDir, TOKEN_KEY_FILE);
  return readKeyFile(file, 'API token key') ?? createKeyFile(file, 'API token key');
}
