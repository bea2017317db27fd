/**
 * The one license record: this server's token, made by the migration that created the table. Written once against SqlDatabase; license.store.contract.ts is
 * the contract every dialect must pass.
 */
import type { SqlDatabase } from '../../db/database.js';

export interface LicenseRecord {
  serverToken: string;
}

export interface LicenseStore {
  get(): Promise<LicenseRecord>;
}

interface Row {
  server_token: string;
}

export class SqlLicenseStore implements LicenseStore {
  constructor(private readonly db: SqlDatabase) {}

  async get(): Promise<LicenseRecord> {
    const row = await this.db.get<Row>('SELECT server_token FROM server_license WHERE id = 1');
    if (!row) throw new Error('server_license has no row: the database was not migrated');
    return { serverToken: row.server_token };
  }
}
