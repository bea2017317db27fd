/**
 * Watchlists: saved searches with their hit counters and the matcher's resume point. Written once
 * against SqlDatabase; watchlists.store.contract.ts is the contract every dialect must pass. The
 * counters and tags change through the detection store (src/detect/), in the transaction that
 * records the hits.
 */
import type { SqlDatabase, SqlExecutor, SqlValue } from '../../db/database.js';
import { UniqueViolation } from '../../db/errors.js';
import { afterChosenId } from '../../db/identity.js';
import { ConflictError } from '../../domain/errors.js';

export type IndexType = 'events' | 'modules';

/** What a client writes. */
export interface WatchlistFields {
  name: string;
  description: string | null;
  /** The URL query string, exactly as the client sent it. */
  searchQuery: string;
  indexType: IndexType;
  enabled: boolean;
  readonly: boolean;
  groupId: number;
  allianceId: number | null;
  fromAlliance: boolean;
}

export interface WatchlistRecord extends WatchlistFields {
  id: number;
  dateAddedMs: number;
  lastHitMs: number | null;
  lastHitCount: number;
  totalHits: number;
  totalTags: number;
  /** When the watchlist's search last ran (search_timestamp); null: never. */
  searchMs: number | null;
  /** Where the matcher resumes; null: from the beginning of the data. */
  matchCursor: string | null;
}

export interface WatchlistsStore {
  /** Adds a watchlist, with the id asked for when given; ConflictError when that id is taken. */
  create(fields: WatchlistFields, addedMs: number, id?: number): Promise<WatchlistRecord>;
  get(id: number): Promise<WatchlistRecord | undefined>;
  /** Every watchlist, by id. */
  list(): Promise<WatchlistRecord[]>;
  /**
   * Changes the fields given; undefined when there is no such watchlist. A new search_query or
   * index_type clears the match cursor, so that the new search runs over the existing data.
   */
  update(id: number, changes: Partial<WatchlistFields>): Promise<WatchlistRecord | undefined>;
  /** Removes the watchlist with its actions and tags; false when absent. */
  delete(id: number): Promise<boolean>;
}

interface WatchlistRow {
  id: number;
  name: string;
  description: string | null;
  search_query: string;
  index_type: IndexType;
  enabled: number | boolean;
  readonly: number | boolean;
  group_id: number;
  alliance_id: number | null;
  from_alliance: number | boolean;
  date_added_ms: number;
  last_hit_ms: number | null;
  last_hit_count: number;
  total_hits: number;
  total_tags: number;
  search_ms: number | null;
  match_cursor: string | null;
}

const COLUMNS: Record<keyof WatchlistFields, string> = {
  name: 'name',
  description: 'description',
  searchQuery: 'search_query',
  indexType: 'index_type',
  enabled: 'enabled',
  readonly: 'readonly',
  groupId: 'group_id',
  allianceId: 'alliance_id',
  fromAlliance: 'from_alliance',
};

export class SqlWatchlistsStore implements WatchlistsStore {
  constructor(private readonly db: SqlDatabase) {}

  async create(fields: WatchlistFields, addedMs: number, id?: number): Promise<WatchlistRecord> {
    const names = Object.keys(COLUMNS) as (keyof WatchlistFields)[];
    const columns = [...(id === undefined ? [] : ['id']), ...names.map((name) => COLUMNS[name]), 'date_added_ms'];
    const values: SqlValue[] = [...(id === undefined ? [] : [id]), ...names.map((name) => fields[name]), addedMs];
    try {
      const row = await this.db.transaction(async (tx) => {
        const inserted = await tx.get<WatchlistRow>(
          `INSERT INTO watchlists (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) RETURNING *`,
          values,
        );
        if (id !== undefined) await afterChosenId(tx, this.db.dialect, 'watchlists', id);
        return inserted;
      });
      return toRecord(row!);
    } catch (error) {
      if (error instanceof UniqueViolation) throw new ConflictError(`A watchlist with id ${id} already exists`);
      throw error;
    }
  }

  async get(id: number): Promise<WatchlistRecord | undefined> {
    const row = await this.db.get<WatchlistRow>('SELECT * FROM watchlists WHERE id = ?', [id]);
    return row && toRecord(row);
  }

  async list(): Promise<WatchlistRecord[]> {
    return (await this.db.all<WatchlistRow>('SELECT * FROM watchlists ORDER BY id')).map(toRecord);
  }

  update(id: number, changes: Partial<WatchlistFields>): Promise<WatchlistRecord | undefined> {
    return this.db.transaction(async (tx) => {
      const before = await tx.get<WatchlistRow>('SELECT * FROM watchlists WHERE id = ?', [id]);
      if (!before) return undefined;
      const given = (Object.keys(COLUMNS) as (keyof WatchlistFields)[]).filter((name) => changes[name] !== undefined);
      const sets = given.map((name) => `${COLUMNS[name]} = ?`);
      const values: SqlValue[] = given.map((name) => changes[name]!);
      const searchChanged = (changes.searchQuery !== undefined && changes.searchQuery !== before.search_query)
        || (changes.indexType !== undefined && changes.indexType !== before.index_type);
      if (searchChanged) sets.push('match_cursor = NULL');
      if (sets.length > 0) await tx.run(`UPDATE watchlists SET ${sets.join(', ')} WHERE id = ?`, [...values, id]);
      return toRecord((await tx.get<WatchlistRow>('SELECT * FROM watchlists WHERE id = ?', [id]))!);
    });
  }

  async delete(id: number): Promise<boolean> {
    return (await this.db.run('DELETE FROM watchlists WHERE id = ?', [id])).changes > 0;
  }
}

/** Reads one watchlist inside another store's transaction (the detection store). */
export async function watchlistIn(tx: SqlExecutor, id: number): Promise<WatchlistRecord | undefined> {
  const row = await tx.get<WatchlistRow>('SELECT * FROM watchlists WHERE id = ?', [id]);
  return row && toRecord(row);
}

function toRecord(row: WatchlistRow): WatchlistRecord {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    searchQuery: row.search_query,
    indexType: row.index_type,
    enabled: Boolean(row.enabled),
    readonly: Boolean(row.readonly),
    groupId: row.group_id,
    allianceId: row.alliance_id,
    fromAlliance: Boolean(row.from_alliance),
    dateAddedMs: row.date_added_ms,
    lastHitMs: row.last_hit_ms,
    lastHitCount: row.last_hit_count,
    totalHits: row.total_hits,
    totalTags: row.total_tags,
    searchMs: row.search_ms,
    matchCursor: row.match_cursor,
  };
}
