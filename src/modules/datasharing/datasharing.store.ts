/**
 * Data-sharing configurations per sensor group. Written once against SqlDatabase;
 * datasharing.store.contract.ts is the contract every dialect must pass.
 */
import type { SqlDatabase } from '../../db/database.js';
import { ForeignKeyViolation, UniqueViolation } from '../../db/errors.js';
import { ConflictError, NotFoundError } from '../../domain/errors.js';

export interface DataSharingRecord {
  id: number;
  groupId: number;
  who: string;
  what: string;
}

export interface DataSharingStore {
  /** The group's configurations, ordered by id (empty for a group with none, or no such group). */
  list(groupId: number): Promise<DataSharingRecord[]>;
  /** The configuration, only when it belongs to that group. */
  get(groupId: number, id: number): Promise<DataSharingRecord | undefined>;
  /** Adds one. ConflictError when the group already shares `what` with `who`; NotFoundError for an unknown group. */
  create(groupId: number, who: string, what: string): Promise<DataSharingRecord>;
  /** Removes the configuration of that group; false when there was none. */
  delete(groupId: number, id: number): Promise<boolean>;
  /** Removes every configuration of the group; how many there were. */
  deleteAll(groupId: number): Promise<number>;
}

interface Row {
  id: number;
  group_id: number;
  who: string;
  what: string;
}

const COLUMNS = 'id, group_id, who, what';

const toRecord = (row: Row): DataSharingRecord => ({ id: row.id, groupId: row.group_id, who: row.who, what: row.what });

export class SqlDataSharingStore implements DataSharingStore {
  constructor(private readonly db: SqlDatabase) {}

  async list(groupId: number): Promise<DataSharingRecord[]> {
    const rows = await this.db.all<Row>(`SELECT ${COLUMNS} FROM group_datasharing WHERE group_id = ? ORDER BY id`, [groupId]);
    return rows.map(toRecord);
  }

  async get(groupId: number, id: number): Promise<DataSharingRecord | undefined> {
    const row = await this.db.get<Row>(`SELECT ${COLUMNS} FROM group_datasharing WHERE group_id = ? AND id = ?`, [groupId, id]);
    return row && toRecord(row);
  }

  async create(groupId: number, who: string, what: string): Promise<DataSharingRecord> {
    try {
      const row = await this.db.get<Row>(
        `INSERT INTO group_datasharing (group_id, who, what) VALUES (?, ?, ?) RETURNING ${COLUMNS}`,
        [groupId, who, what],
      );
      return toRecord(row!);
    } catch (error) {
      if (error instanceof UniqueViolation) throw new ConflictError(`Sensor group ${groupId} already shares ${what} with ${who}`);
      if (error instanceof ForeignKeyViolation) throw new NotFoundError(`No sensor group with id ${groupId}`);
      throw error;
    }
  }

  async delete(groupId: number, id: number): Promise<boolean> {
    return (await this.db.run('DELETE FROM group_datasharing WHERE group_id = ? AND id = ?', [groupId, id])).changes > 0;
  }

  async deleteAll(groupId: number): Promise<number> {
    return (await this.db.run('DELETE FROM group_datasharing WHERE group_id = ?', [groupId])).changes;
  }
}
