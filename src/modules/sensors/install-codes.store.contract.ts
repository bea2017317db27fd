/** The contract of InstallCodesStore, run against every dialect (install-codes.store.test.ts). */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import { SecretBox, SecretUnreadableError } from '../../db/secrets/secret-box.js';
import { SqlInstallCodesStore } from './install-codes.store.js';

export function installCodesStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('keeps one install code per group and finds the group by it', async () => {
    const codes = new SqlInstallCodesStore(await fresh(), new SecretBox(randomBytes(32)));
    assert.equal(await codes.installCode(1, 'first'), 'first');
    assert.equal(await codes.installCode(1, 'second'), 'first', 'the first code stays');
    assert.equal(await codes.groupForInstallCode('first'), 1);
    assert.equal(await codes.groupForInstallCode('second'), undefined);
  });

  it('stores no code in plain text, and needs its key to find or show one', async () => {
    const db = await fresh();
    const code = 'c0de'.repeat(12);
    await new SqlInstallCodesStore(db, new SecretBox(randomBytes(32))).installCode(1, code);
    const rows = await db.all<Record<string, unknown>>('SELECT * FROM sensor_install_codes');
    assert.equal(rows.length, 1);
    assert.ok(!JSON.stringify(rows).includes(code), JSON.stringify(rows));
    const otherKey = new SqlInstallCodesStore(db, new SecretBox(randomBytes(32)));
    assert.equal(await otherKey.groupForInstallCode(code), undefined);
    await assert.rejects(otherKey.installCode(1, 'new'), SecretUnreadableError);
  });
}
