import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { forEachDialect } from '../../../test/support/dialects.js';
import { tempDir } from '../../../test/support/temp.js';
import { SqliteDatabase } from '../../db/dialects/sqlite.js';
import { migrate } from '../../db/migrate.js';
import { sqliteMigrations } from '../../db/migrations/sqlite.js';
import { SecretBox } from '../../db/secrets/secret-box.js';
import { installCodesStoreContract } from './install-codes.store.contract.js';
import { SqlInstallCodesStore } from './install-codes.store.js';

forEachDialect(installCodesStoreContract);

describe('install codes written in plain text before migration 14', () => {
  it('are sealed at the next start and still register sensors into their group', async () => {
    const dir = tempDir();
    const db = SqliteDatabase.open(join(dir, 'vigil.db'));
    try {
      await migrate(db, sqliteMigrations.filter((m) => m.version < 14));
      await db.run("INSERT INTO sensor_install_codes (group_id, code) VALUES (1, 'legacy-plain-code')");
      await migrate(db, sqliteMigrations);
      const codes = new SqlInstallCodesStore(db, new SecretBox(randomBytes(32)));
      assert.equal(await codes.sealPlaintext(), 1);
      assert.equal(await codes.sealPlaintext(), 0, 'once');
      assert.equal(await codes.groupForInstallCode('legacy-plain-code'), 1);
      assert.equal(await codes.installCode(1, 'unused'), 'legacy-plain-code');
      assert.deepEqual(await db.all("SELECT name FROM sqlite_master WHERE name LIKE 'sensor_install_codes%' AND type = 'table'"), [
        { name: 'sensor_install_codes' },
      ]);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
