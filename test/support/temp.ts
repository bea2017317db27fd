import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/**
 * A new empty directory under the system temp dir. Callers may remove it when done; whatever is
 * left is removed when the test process exits, so a failed or cancelled test leaves no litter.
 */
export function tempDir(prefix = 'vigil-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (made.push(dir) === 1) process.once('exit', removeMade);
  return dir;
}

function removeMade(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
}
