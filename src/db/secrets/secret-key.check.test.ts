/** The key check a database keeps, on every dialect: the first start records it, later starts are held to it. */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { forEachDialect } from '../../../test/support/dialects.js';
import { tempDir } from '../../../test/support/temp.js';
import { openSecretBox, SecretKeyError } from './secret-key.js';

const dir = tempDir('vigil-key-check-');
after(() => rmSync(dir, { recursive: true, force: true }));

forEachDialect((fresh) => {
  it('records the key at the first start and refuses another key afterwards', async () => {
    const db = await fresh();
    const keyFile = join(dir, `${db.dialect}.key`);
    const first = await openSecretBox(db, keyFile);
    const again = await openSecretBox(db, keyFile);
    assert.equal(again.open(first.seal('x', 'install-code'), 'install-code'), 'x');
    await assert.rejects(openSecretBox(db, join(dir, `${db.dialect}-other.key`)), SecretKeyError);
  });
});
