/**
 * Sites: named sets of sensor groups. Written once against SqlDatabase; sites.store.contract.ts
 * is the contract every dialect must pass.
 */
import type { SqlDatabase, SqlExecutor } from '../../db/database.js';
import { ForeignKeyViolation, UniqueViolation } from '../../db/errors.js';
import { ConflictError } from '../../domain/errors.js';

/** Seeded by the first migration as "Default Site"; it always exists. */
export const DEFAULT_SITE_ID = 1;

export interface SiteRecord {
  id: number;
  name: string;
  /** The groups in the site, ordered by id. */
  groupIds: number[];
}

export interface SitesStore {
  /** Adds a site. ConflictError when the name is taken. */
  create(name: string): Promise<SiteRecord>;
  get(id: number): Promise<SiteRecord | undefined>;
  /** Every site, ordered by id. */
  list(): Promise<SiteRecord[]>;
  /** undefined when there is no such site; ConflictError when the name is taken. */
  rename(id: number, name: string): Promise<SiteRecord | undefined>;
  /** false when there was no such site; ConflictError while a group is still in it. */
  delete(id: number): Promise<boolean>;
}

export class SqlSitesStore implements SitesStore {
  constructor(private readonly db: SqlDatabase) {}

  async create(name: string): Promise<SiteRecord> {
    const row = await uniqueName(name, this.db.get<{ id: number }>('INSERT INTO sites (name) VALUES (?) RETURNING id', [name]));
    return { id: row!.id, name, groupIds: [] };
  }

  get(id: number): Promise<SiteRecord | undefined> {
    return this.fetch(this.db, id);
  }

  async list(): Promise<SiteRecord[]> {
    const sites = await this.db.all<{ id: number; name: string }>('SELECT id, name FROM sites ORDER BY id');
    const groups = await this.db.all<{ id: number; site_id: number }>('SELECT id, site_id FROM sensor_groups ORDER BY id');
    return sites.map((site) => ({
      ...site,
      groupIds: groups.filter((group) => group.site_id === site.id).map((group) => group.id),
    }));
  }

  rename(id: number, name: string): Promise<SiteRecord | undefined> {
    return this.db.transaction(async (tx) => {
      const { changes } = await uniqueName(name, tx.run('UPDATE sites SET name = ? WHERE id = ?', [name, id]));
      return changes > 0 ? this.fetch(tx, id) : undefined;
    });
  }

  async delete(id: number): Promise<boolean> {
    try {
      return (await this.db.run('DELETE FROM sites WHERE id = ?', [id])).changes > 0;
    } catch (error) {
      if (error instanceof ForeignKeyViolation) throw new ConflictError(`Site ${id} still holds sensor groups`);
      throw error;
    }
  }

  private async fetch(db: SqlExecutor, id: number): Promise<SiteRecord | undefined> {
    const site = await db.get<{ id: number; name: string }>('SELECT id, name FROM sites WHERE id = ?', [id]);
    if (!site) return undefined;
    const groups = await db.all<{ id: number }>('SELECT id FROM sensor_groups WHERE site_id = ? ORDER BY id', [id]);
    return { ...site, groupIds: groups.map((group) => group.id) };
  }
}

async function uniqueName<T>(name: string, statement: Promise<T>): Promise<T> {
  try {
    return await statement;
  } catch (error) {
    if (error instanceof UniqueViolation) throw new ConflictError(`Site ${name} already exists`);
    throw error;
  }
}
