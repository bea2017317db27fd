import assert from 'node:assert/strict';
import { createReadStream, rmSync } from 'node:fs';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { tempDir } from '../../../test/support/temp.js';
import { binaryArchive } from './binary-archive.js';

describe('binary archive', () => {
  it('ends the zip with an error, not an uncaught one, when the content cannot be read', async () => {
    const dir = tempDir();
    try {
      const unreadable = createReadStream(dir); // a directory: the first read fails with EISDIR
      const output = binaryArchive({ stream: unreadable, size: 10 }, { timestampMs: 0, origFilename: 'x' });
      output.resume();
      const [error] = await once(output, 'error');
      assert.equal((error as NodeJS.ErrnoException).code, 'EISDIR');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
