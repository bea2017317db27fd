/**
 * The key API tokens are derived from (see credentials.ts). Created on first start in the data
 * dir, readable by the owner only. Losing it invalidates every token; `vigil token` then prints
 * fresh ones.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../../db/private-files.js';

export const TOKEN_KEY_FILE = 'token.key';

export function loadOrCreateTokenKey(dataDir: string): Buffer {
  const file = join(dataDir, TOKEN_KEY_FILE);
  try {
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  makePrivateDir(dataDir);
  const key = randomBytes(32);
  // 'wx' fails if a concurrent start wrote the key first; then that key is the one to use.
  try {
    writeFileSync(file, key.toString('hex') + '\n', { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  }
}
