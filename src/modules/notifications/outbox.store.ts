/**
 * The notification outbox (docs/adr/0023-notification-outbox.md): one row per notification and
 * channel, added in the transaction that records the hit (enqueueNotification), then taken by the
 * delivery worker until sent or given up. A row is pending (never tried, or retrying after a
 * failure, at next_attempt_ms), sent, or failed. Written once against SqlDatabase;
 * outbox.store.contract.ts is its contract.
 */
import type { SqlDatabase, SqlExecutor } from '../../db/database.js';
import type { ChannelName } from './channel-settings.js';

export interface OutboxEntry {
  id: number;
  notificationId: string;
  channel: ChannelName;
  /** NotificationPayload as JSON text. */
  payload: string;
  /** Deliveries tried so far. */
  attempts: number;
}

export interface ChannelCounts {
  channel: ChannelName;
  /** Never tried yet. */
  pending: number;
  /** Tried, failed, to be tried again. */
  retrying: number;
  sent: number;
  failed: number;
  lastError: string | null;
  lastErrorMs: number | null;
  lastSuccessMs: number | null;
}

export interface OutboxStore {
  /** Pending entries due at `nowMs`, oldest first, at most `limit`, of channels other than `except`. */
  due(nowMs: number, limit: number, except?: readonly ChannelName[]): Promise<OutboxEntry[]>;
  markSent(id: number, atMs: number): Promise<void>;
  /** Records a failed try; the entry is tried again at `nextMs`. */
  markRetry(id: number, error: string, atMs: number, nextMs: number): Promise<void>;
  /** Records a failed try and gives the entry up. */
  markFailed(id: number, error: string, atMs: number): Promise<void>;
  /** Counts and last outcomes of each channel that has entries. */
  channelCounts(): Promise<ChannelCounts[]>;
  /** Deletes entries sent before `beforeMs`; how many. */
  pruneSent(beforeMs: number): Promise<number>;
  /** Gives the channel's failed entries a new round of tries, due at `nowMs`; how many. */
  requeueFailed(channel: ChannelName, nowMs: number): Promise<number>;
  /** Deletes the channel's failed entries; how many. */
  deleteFailed(channel: ChannelName): Promise<number>;
  /** Email addresses of those users (by id or username) that have one. */
  recipientEmails(users: readonly (number | string)[]): Promise<string[]>;
}

/** Adds a notification for a channel inside the caller's transaction; a second one of the same id and channel is ignored. */
export async function enqueueNotification(
  tx: SqlExecutor, entry: { notificationId: string; channel: ChannelName; payload: string; createdMs: number },
): Promise<void> {
  await tx.run(
    `INSERT INTO notification_outbox (notification_id, channel, payload, next_attempt_ms, created_ms) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT DO NOTHING`,
    [entry.notificationId, entry.channel, entry.payload, entry.createdMs, entry.createdMs],
  );
}

interface EntryRow {
  id: number;
  notification_id: string;
  channel: ChannelName;
  payload: string;
  attempts: number;
}

export class SqlOutboxStore implements OutboxStore {
  constructor(private readonly db: SqlDatabase) {}

  async due(nowMs: number, limit: number, except: readonly ChannelName[] = []): Promise<OutboxEntry[]> {
    const skipped = except.length === 0 ? '' : ` AND channel NOT IN (${except.map(() => '?').join(', ')})`;
    const rows = await this.db.all<EntryRow>(
      `SELECT id, notification_id, channel, payload, attempts FROM notification_outbox
       WHERE state = 'pending' AND next_attempt_ms <= ?${skipped} ORDER BY next_attempt_ms, id LIMIT ?`,
      [nowMs, ...except, limit],
    );
    return rows.map((r) => ({ id: Number(r.id), notificationId: r.notification_id, channel: r.channel, payload: r.payload, attempts: r.attempts }));
  }

  async markSent(id: number, atMs: number): Promise<void> {
    await this.db.run(
      "UPDATE notification_outbox SET state = 'sent', attempts = attempts + 1, last_attempt_ms = ?, sent_ms = ? WHERE id = ?",
      [atMs, atMs, id],
    );
  }

  async markRetry(id: number, error: string, atMs: number, nextMs: number): Promise<void> {
    await this.db.run(
      'UPDATE notification_outbox SET attempts = attempts + 1, last_attempt_ms = ?, last_error = ?, next_attempt_ms = ? WHERE id = ?',
      [atMs, error, nextMs, id],
    );
  }

  async markFailed(id: number, error: string, atMs: number): Promise<void> {
    await this.db.run(
      "UPDATE notification_outbox SET state = 'failed', attempts = attempts + 1, last_attempt_ms = ?, last_error = ? WHERE id = ?",
      [atMs, error, id],
    );
  }

  async channelCounts(): Promise<ChannelCounts[]> {
    const counts = await this.db.all<{ channel: ChannelName; pending: number; retrying: number; sent: number; failed: number; last_success_ms: number | null }>(
      `SELECT channel,
         SUM(CASE WHEN state = 'pending' AND attempts = 0 THEN 1 ELSE 0 END) AS pending,
         SUM(CASE WHEN state = 'pending' AND attempts > 0 THEN 1 ELSE 0 END) AS retrying,
         SUM(CASE WHEN state = 'sent' THEN 1 ELSE 0 END) AS sent,
         SUM(CASE WHEN state = 'failed' THEN 1 ELSE 0 END) AS failed,
         MAX(sent_ms) AS last_success_ms
       FROM notification_outbox GROUP BY channel ORDER BY channel`,
    );
    const result: ChannelCounts[] = [];
    for (const c of counts) {
      const last = await this.db.get<{ last_error: string; last_attempt_ms: number }>(
        `SELECT last_error, last_attempt_ms FROM notification_outbox WHERE channel = ? AND last_error IS NOT NULL
         ORDER BY last_attempt_ms DESC, id DESC LIMIT 1`,
        [c.channel],
      );
      result.push({
        channel: c.channel, pending: Number(c.pending), retrying: Number(c.retrying), sent: Number(c.sent), failed: Number(c.failed),
        lastError: last?.last_error ?? null, lastErrorMs: last ? Number(last.last_attempt_ms) : null,
        lastSuccessMs: c.last_success_ms === null ? null : Number(c.last_success_ms),
      });
    }
    return result;
  }

  async pruneSent(beforeMs: number): Promise<number> {
    return (await this.db.run("DELETE FROM notification_outbox WHERE state = 'sent' AND sent_ms < ?", [beforeMs])).changes;
  }

  async requeueFailed(channel: ChannelName, nowMs: number): Promise<number> {
    // Their count of tries starts again, so they get the whole schedule of retries; the last
    // error stays, as the channel's history.
    return (await this.db.run(
      "UPDATE notification_outbox SET state = 'pending', attempts = 0, next_attempt_ms = ? WHERE channel = ? AND state = 'failed'",
      [nowMs, channel],
    )).changes;
  }

  async deleteFailed(channel: ChannelName): Promise<number> {
    return (await this.db.run("DELETE FROM notification_outbox WHERE channel = ? AND state = 'failed'", [channel])).changes;
  }

  async recipientEmails(users: readonly (number | string)[]): Promise<string[]> {
    const ids = users.filter((u): u is number => typeof u === 'number');
    const names = users.filter((u): u is string => typeof u === 'string');
    if (ids.length + names.length === 0) return [];
    const marks = (list: readonly unknown[]) => (list.length === 0 ? 'NULL' : list.map(() => '?').join(', '));
    const rows = await this.db.all<{ email: string }>(
      `SELECT email FROM users WHERE (id IN (${marks(ids)}) OR username IN (${marks(names)})) AND email <> '' ORDER BY id`,
      [...ids, ...names],
    );
    return rows.map((r) => r.email);
  }
}
