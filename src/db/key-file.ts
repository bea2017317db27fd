/**
 * Key files: 32 random bytes in hex, readable by the owner only (the API-token key, the secrets
 * key). A start reads the file, or creates it when there is none.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError } from '../config/load.js';
import { makePrivateDir, PRIVATE_FILE_MODE } from './private-files.js';

const KEY_HEX = /^[0-9a-f]{64}$/;

/** A key file that exists but cannot be read or holds no key: the start stops with this message. */
export class KeyFileError extends ConfigError {}

/** The key in `file`, or undefined when there is no such file. `what` names the key in errors. */
export function readKeyFile(file: string, what: string): Buffer | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new KeyFileError(`The ${what} file ${file} cannot be read: ${(error as Error).message}`);
  }
  if (!KEY_HEX.test(text)) throw new KeyFileError(`The ${what} file ${file} does not hold a key (64 hex digits).`);
  return Buffer.from(text, 'hex');
}

/** Writes a new random key to `file` (0600, its folder 0700) and returns it. */
export function createKeyFile(file: string, what: string): Buffer {
  makePrivateDir(dirname(file));
  const key = randomBytes(32);
  // 'wx' fails if a concurrent first start (`vigil token` beside `vigil serve`) wrote the key
  // first; then that key is the one to use.
  try {
    writeFileSync(file, key.toString('hex') + '\n', { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readKeyFile(file, what)!;
  }
}
