/**
 * The one license record: this server's token. SQLite's migration made it with the table;
 * PostgreSQL's makes none, since test databases are copies of one migrated template and a token
 * made there would be every copy's: the first read makes it here instead. Written once against
 * SqlDatabase; license.store.contract.ts is the contract every dialect must pass.
 */
import { randomBytes } from 'node:crypto';
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

const READ = 'SELECT server_token FROM server_license WHERE id = 1';

export class SqlLicenseStore implements LicenseStore {
  constructor(private readonly db: SqlDatabase) {}

  async get(): Promise<LicenseRecord> {
    const row = (await this.db.get<Row>(READ)) ?? (await this.made());
    return { serverToken: row.server_token };
  }

  /** The token, made now; when two servers make one at once, both read the one that was stored first. */
  private async made(): Promise<Row> {
    return this.db.transaction(async (tx) => {
      await tx.run('INSERT INTO server_license (id, server_token) VALUES (1, ?) ON CONFLICT (id) DO NOTHING', [randomBytes(16).toString('hex')]);
      return (await tx.get<Row>(READ))!;
    });
  }
}
