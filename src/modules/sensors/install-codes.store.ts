/**
 * Each group's install code, the secret a sensor presents to register into that group. Stored
 * sealed (for showing it to the group's administrators) beside a keyed hash of it (for finding the
 * group at registration), never in plain text (docs/adr/0015-secrets-at-rest.md).
 */
import type { SqlDatabase, SqlExecutor } from '../../db/database.js';
import type { SecretBox } from '../../db/secrets/secret-box.js';
import { tableExists } from '../../db/table-exists.js';

export interface InstallCodesStore {
  /** The group's install code, created (from `candidate`) the first time it is asked for. */
  installCode(groupId: number, candidate: string): Promise<string>;
  groupForInstallCode(code: string): Promise<number | undefined>;
}

export class SqlInstallCodesStore implements InstallCodesStore {
  constructor(private readonly db: SqlDatabase, private readonly secrets: SecretBox) {}

  async installCode(groupId: number, candidate: string): Promise<string> {
    return this.db.transaction(async (tx) => {
      const existing = await tx.get<{ code_sealed: string }>('SELECT code_sealed FROM sensor_install_codes WHERE group_id = ?', [groupId]);
      if (existing) return this.secrets.open(existing.code_sealed, 'install-code');
      await tx.run('INSERT INTO sensor_install_codes (group_id, code_lookup, code_sealed) VALUES (?, ?, ?)', [
        groupId, this.secrets.lookupHash(candidate, 'install-code'), this.secrets.seal(candidate, 'install-code'),
      ]);
      return candidate;
    });
  }

  async groupForInstallCode(code: string): Promise<number | undefined> {
    const row = await this.db.get<{ group_id: number }>(
      'SELECT group_id FROM sensor_install_codes WHERE code_lookup = ?', [this.secrets.lookupHash(code, 'install-code')],
    );
    return row?.group_id;
  }

  /**
   * Seals the codes an SQLite database kept in plain text before migration 14 and drops their
   * table; a no-op once done. The caller runs it with secure_delete on, so the plain values do not linger in freed pages.
   */
  async sealPlaintext(): Promise<number> {
    const legacyTable = (db: SqlExecutor) => tableExists(db, this.db.dialect, 'sensor_install_codes_plaintext');
    if (!(await legacyTable(this.db))) return 0;
    return this.db.transaction(async (tx) => {
      // Asked again inside: another process starting at the same time may have sealed them first.
      if (!(await legacyTable(tx))) return 0;
      const rows = await tx.all<{ group_id: number; code: string }>('SELECT group_id, code FROM sensor_install_codes_plaintext');
      for (const { group_id: groupId, code } of rows) {
        await tx.run('INSERT INTO sensor_install_codes (group_id, code_lookup, code_sealed) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [
          groupId, this.secrets.lookupHash(code, 'install-code'), this.secrets.seal(code, 'install-code'),
        ]);
      }
      await tx.run('DROP TABLE sensor_install_codes_plaintext');
      return rows.length;
    });
  }
}
