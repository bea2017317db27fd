/**
 * Everything the server keeps under its data dir (database, WAL, event chunks, binaries, TLS key,
 * token and secret keys) is the owner's alone: directories 0700, files 0600.
 *
 * Each create names its mode explicitly rather than relying on process.umask(): the umask is
 * process-wide state that an embedding program or a test runner may set otherwise, and changing
 * it would affect every file the process writes, not just ours. A mode given at create time can
 * only be narrowed by the umask, never widened, so these are upper bounds that always hold.
 */
import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;
/** Permission bits that let anyone but the owner read, write or enter. */
const OTHERS_BITS = 0o077;

/** Creates the directory (and missing parents) readable by the owner only. */
export function makePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Creates an empty file with the private mode unless it exists. SQLite creates its -wal and -shm
 * files with the database file's own mode, so creating vigil.db this way first keeps them private.
 */
export function touchPrivateFile(path: string): void {
  closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
}

/** A path that was open to others, and the mode it had. */
export interface LoosenedPath {
  path: string;
  mode: number;
}

/**
 * Creates the data dir private, or takes an existing one back to the owner: every directory and
 * file beneath it that others could read, write or enter loses those bits. Symbolic links inside
 * are left alone (their targets are not ours to change); the data dir itself may be one. Answers
 * what was changed, for a warning.
 */
export function securePrivateDataDir(dataDir: string): LoosenedPath[] {
  makePrivateDir(dataDir);
  const loosened: LoosenedPath[] = [];
  const visit = (path: string) => {
    const stats = lstatSync(path);
    if (stats.isSymbolicLink()) return;
    const mode = stats.mode & 0o7777;
    if ((mode & OTHERS_BITS) !== 0) {
      chmodSync(path, stats.isDirectory() ? PRIVATE_DIR_MODE : PRIVATE_FILE_MODE);
      loosened.push({ path, mode });
    }
    if (stats.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(realpathSync(dataDir));
  return loosened;
}
