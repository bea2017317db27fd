/**
 * Ingress filters. Written once against SqlDatabase; ingress-filters.store.contract.ts is the
 * contract every dialect must pass.
 */
import type { SqlDatabase, SqlExecutor } from '../../db/database.js';
import { UniqueViolation } from '../../db/errors.js';
import { ConflictError } from '../../domain/errors.js';
import { INGRESS_FILTER_DEFAULTS } from './ingress-filters.defaults.js';
import type { IngressFilterSettings } from './ingress-filters.schemas.js';

export interface IngressFilterRecord {
  id: string;
  /** Every writable field, as last written over the defaults. */
  settings: IngressFilterSettings;
  /** ISO 8601. */
  createdAt: string;
  modifiedAt: string;
  /** User ids; kept as written when the user is deleted later. */
  createdBy: number;
  modifiedBy: number;
}

/** Who wrote, and when (ISO 8601). */
export interface WriteStamp {
  userId: number;
  at: string;
}

export interface NewIngressFilter {
  id: string;
  settings: IngressFilterSettings;
}

export interface IngressFiltersStore {
  /**
   * Adds the filters in one transaction, stamped as created and modified by `stamp`; ConflictError
   * (and nothing added) when an id is taken or repeated.
   */
  create(filters: readonly NewIngressFilter[], stamp: WriteStamp): Promise<IngressFilterRecord[]>;
  get(id: string): Promise<IngressFilterRecord | undefined>;
  /** Every filter, oldest first. */
  list(): Promise<IngressFilterRecord[]>;
  /** Merges `changes` over the stored settings, stamped as modified; undefined when there is no such filter. */
  update(id: string, changes: Partial<IngressFilterSettings>, stamp: WriteStamp): Promise<IngressFilterRecord | undefined>;
  /** false when there was no such filter. */
  delete(id: string): Promise<boolean>;
}

interface FilterRow {
  id: string;
  settings: string;
  created_at: string;
  created_by: number;
  modified_at: string;
  modified_by: number;
}

const FILTER_COLUMNS = 'id, settings, created_at, created_by, modified_at, modified_by';

export class SqlIngressFiltersStore implements IngressFiltersStore {
  constructor(private readonly db: SqlDatabase) {}

  async create(filters: readonly NewIngressFilter[], stamp: WriteStamp): Promise<IngressFilterRecord[]> {
    try {
      return await this.db.transaction(async (tx) => {
        const created: IngressFilterRecord[] = [];
        for (const filter of filters) {
          await tx.run(
            'INSERT INTO ingress_filters (id, settings, created_at, created_by, modified_at, modified_by) VALUES (?, ?, ?, ?, ?, ?)',
            [filter.id, JSON.stringify(filter.settings), stamp.at, stamp.userId, stamp.at, stamp.userId],
          );
          created.push((await readFilter(tx, filter.id))!);
        }
        return created;
      });
    } catch (error) {
      if (error instanceof UniqueViolation) throw new ConflictError('An ingress filter with that id already exists');
      throw error;
    }
  }

  get(id: string): Promise<IngressFilterRecord | undefined> {
    return readFilter(this.db, id);
  }

  async list(): Promise<IngressFilterRecord[]> {
    const rows = await this.db.all<FilterRow>(`SELECT ${FILTER_COLUMNS} FROM ingress_filters ORDER BY seq`);
    return rows.map(toRecord);
  }

  update(id: string, changes: Partial<IngressFilterSettings>, stamp: WriteStamp): Promise<IngressFilterRecord | undefined> {
    return this.db.transaction(async (tx) => {
      const stored = await readFilter(tx, id);
      if (!stored) return undefined;
      await tx.run('UPDATE ingress_filters SET settings = ?, modified_at = ?, modified_by = ? WHERE id = ?', [
        JSON.stringify({ ...stored.settings, ...changes }), stamp.at, stamp.userId, id,
      ]);
      return readFilter(tx, id);
    });
  }

  async delete(id: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM ingress_filters WHERE id = ?', [id])).changes > 0;
  }
}

async function readFilter(db: SqlExecutor, id: string): Promise<IngressFilterRecord | undefined> {
  const row = await db.get<FilterRow>(`SELECT ${FILTER_COLUMNS} FROM ingress_filters WHERE id = ?`, [id]);
  return row && toRecord(row);
}

function toRecord(row: FilterRow): IngressFilterRecord {
  return {
    id: row.id,
    settings: { ...INGRESS_FILTER_DEFAULTS, ...(JSON.parse(row.settings) as Pick<IngressFilterSettings, 'name'> & Partial<IngressFilterSettings>) },
    createdAt: row.created_at,
    modifiedAt: row.modified_at,
    createdBy: Number(row.created_by),
    modifiedBy: Number(row.modified_by),
  };
}
