/**
 * The notification actions of watchlists and feeds (reference admin §1.4), one of each type per
 * owner: email, syslog and HTTP POST notify through the outbox (modules/notifications), alert
 * raises alerts. Written once against SqlDatabase; detection-actions.store.contract.ts is its contract.
 */
import type { SqlDatabase, SqlExecutor } from '../../db/database.js';
import { ForeignKeyViolation, UniqueViolation } from '../../db/errors.js';
import { ConflictError, NotFoundError } from '../../domain/errors.js';

export const ACTION_TYPES = ['email', 'syslog', 'http_post', 'alert'] as const;
/** The action type that raises an alert on every new hit. */
export const ALERT_ACTION = 3;

export type ActionOwner = { kind: 'watchlist'; id: number } | { kind: 'feed'; id: number };

export interface ActionRecord {
  id: number;
  owner: ActionOwner;
  actionType: number;
  actionData: string | null;
}

export interface DetectionActionsStore {
  /** The owner's actions, by id. */
  list(owner: ActionOwner): Promise<ActionRecord[]>;
  /** ConflictError when the owner has an action of that type; NotFoundError when the owner is gone. */
  create(owner: ActionOwner, actionType: number, actionData: string | null): Promise<ActionRecord>;
  /** Changes the fields given; undefined when the owner has no such action; ConflictError as create. */
  update(owner: ActionOwner, id: number, changes: { actionType?: number; actionData?: string | null }): Promise<ActionRecord | undefined>;
  delete(owner: ActionOwner, id: number): Promise<boolean>;
  /** Removes the owner's action of that type; false when it had none. */
  deleteType(owner: ActionOwner, actionType: number): Promise<boolean>;
}

interface ActionRow {
  id: number;
  watchlist_id: number | null;
  feed_id: number | null;
  action_type: number;
  action_data: string | null;
}

const ownerColumn = (owner: ActionOwner) => (owner.kind === 'watchlist' ? 'watchlist_id' : 'feed_id');

export class SqlDetectionActionsStore implements DetectionActionsStore {
  constructor(private readonly db: SqlDatabase) {}

  async list(owner: ActionOwner): Promise<ActionRecord[]> {
    const rows = await this.db.all<ActionRow>(`SELECT * FROM detection_actions WHERE ${ownerColumn(owner)} = ? ORDER BY id`, [owner.id]);
    return rows.map(toRecord);
  }

  create(owner: ActionOwner, actionType: number, actionData: string | null): Promise<ActionRecord> {
    return translated(owner, actionType, async () => {
      const row = await this.db.get<ActionRow>(
        `INSERT INTO detection_actions (${ownerColumn(owner)}, action_type, action_data) VALUES (?, ?, ?) RETURNING *`,
        [owner.id, actionType, actionData],
      );
      return toRecord(row!);
    });
  }

  update(owner: ActionOwner, id: number, changes: { actionType?: number; actionData?: string | null }): Promise<ActionRecord | undefined> {
    return translated(owner, changes.actionType ?? -1, async () => {
      const row = await this.db.get<ActionRow>(
        `UPDATE detection_actions SET action_type = COALESCE(?, action_type),
           action_data = CASE WHEN ? THEN ? ELSE action_data END
         WHERE id = ? AND ${ownerColumn(owner)} = ? RETURNING *`,
        [changes.actionType ?? null, changes.actionData !== undefined, changes.actionData ?? null, id, owner.id],
      );
      return row && toRecord(row);
    });
  }

  async delete(owner: ActionOwner, id: number): Promise<boolean> {
    return (await this.db.run(`DELETE FROM detection_actions WHERE id = ? AND ${ownerColumn(owner)} = ?`, [id, owner.id])).changes > 0;
  }

  async deleteType(owner: ActionOwner, actionType: number): Promise<boolean> {
    const result = await this.db.run(`DELETE FROM detection_actions WHERE ${ownerColumn(owner)} = ? AND action_type = ?`, [owner.id, actionType]);
    return result.changes > 0;
  }
}

/** Whether the owner's action of that type is on, inside another store's transaction. */
export async function hasAction(tx: SqlExecutor, owner: ActionOwner, actionType: number): Promise<boolean> {
  return (await tx.get(`SELECT 1 AS found FROM detection_actions WHERE ${ownerColumn(owner)} = ? AND action_type = ?`, [owner.id, actionType])) !== undefined;
}

/** The owner's email, syslog and HTTP POST actions (those that notify), inside another store's transaction. */
export async function notifyingActions(tx: SqlExecutor, owner: ActionOwner): Promise<ActionRecord[]> {
  const rows = await tx.all<ActionRow>(
    `SELECT * FROM detection_actions WHERE ${ownerColumn(owner)} = ? AND action_type IN (0, 1, 2) ORDER BY action_type`,
    [owner.id],
  );
  return rows.map(toRecord);
}

async function translated<T>(owner: ActionOwner, actionType: number, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof UniqueViolation) {
      throw new ConflictError(`The ${owner.kind} already has a ${ACTION_TYPES[actionType] ?? 'such'} action`);
    }
    if (error instanceof ForeignKeyViolation) throw new NotFoundError(`No ${owner.kind} with id ${owner.id}`);
    throw error;
  }
}

function toRecord(row: ActionRow): ActionRecord {
  const owner: ActionOwner = row.watchlist_id !== null ? { kind: 'watchlist', id: row.watchlist_id } : { kind: 'feed', id: row.feed_id! };
  return { id: row.id, owner, actionType: row.action_type, actionData: row.action_data };
}
