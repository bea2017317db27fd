import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { tempDir } from '../../test/support/temp.js';
import { securePrivateDataDir } from './private-files.js';

describe('securePrivateDataDir', () => {
  const root = realpathSync(tempDir());
  after(() => rmSync(root, { recursive: true, force: true }));
  const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

  it('creates a missing data dir 0700', () => {
    const dataDir = join(root, 'a', 'data');
    assert.deepEqual(securePrivateDataDir(dataDir), []);
    assert.equal(mode(dataDir), '700');
  });

  it('takes back a data dir reached through a symbolic link, leaving links inside alone', () => {
    const real = join(root, 'real');
    mkdirSync(join(real, 'events'), { recursive: true, mode: 0o755 });
    chmodSync(real, 0o755);
    writeFileSync(join(real, 'events', 'partition-1.chunks'), 'x', { mode: 0o644 });
    const outside = join(root, 'outside.txt');
    writeFileSync(outside, 'not ours', { mode: 0o644 });
    symlinkSync(outside, join(real, 'link'));
    symlinkSync(real, join(root, 'data'));

    const loosened = securePrivateDataDir(join(root, 'data')).map((entry) => [entry.path, entry.mode.toString(8)]);
    assert.deepEqual(loosened, [[real, '755'], [join(real, 'events'), '755'], [join(real, 'events', 'partition-1.chunks'), '644']]);
    assert.equal(mode(real), '700');
    assert.equal(mode(join(real, 'events', 'partition-1.chunks')), '600');
    assert.equal(mode(outside), '644', 'a link\'s target is not changed');
  });
});
