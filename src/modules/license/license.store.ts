/**
 * The one license record: this server's token, made by the migration that created the table, and
 * the last license block uploaded. Written once against SqlDatabase; license.store.contract.ts is
 * the contract every dialect must pass.
 */
import type { SqlDatabase } from '../../db/database.js';

export interface LicenseRecord {
  serverToken: string;
  /** The last block uploaded, or null. */
  licenseBlock: string | null;
  uploadedMs: number | null;
}

export interface LicenseStore {
  get(): Promise<LicenseRecord>;
  /** Keeps `block` as the last one uploaded, replacing any before it; the server token stays. */
  saveBlock(block: string, nowMs: number): Promise<void>;
}

interface Row {
  server_token: string;
  license_block: string | null;
  uploaded_ms: number | null;
}

export class SqlLicenseStore implements LicenseStore {
  constructor(private readonly db: SqlDatabase) {}

  async get(): Promise<LicenseRecord> {
    const row = await this.db.get<Row>('SELECT server_token, license_block, uploaded_ms FROM server_license WHERE id = 1');
    if (!row) throw new Error('server_license has no row: the database was not migrated');
    return { serverToken: row.server_token, licenseBlock: row.license_block, uploadedMs: row.uploaded_ms === null ? null : Number(row.uploaded_ms) };
  }

  async saveBlock(block: string, nowMs: number): Promise<void> {
    await this.db.run('UPDATE server_license SET license_block = ?, uploaded_ms = ? WHERE id = 1', [block, nowMs]);
  }
}
