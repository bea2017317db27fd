import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A new empty directory under the system temp dir; callers remove it when done. */
export function tempDir(prefix = 'vigil-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
