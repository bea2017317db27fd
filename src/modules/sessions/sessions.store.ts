/**
 * Console sessions, kept in the database so that every server sharing it honours them. A row is
 * keyed by the SHA-256 of the session id (the id itself lives only in the browser's cookie), so
 * the table alone lets nobody in. Deleting a user deletes their sessions (ON DELETE CASCADE).
 * sessions.store.contract.ts is the contract every dialect must pass.
 */
import type { SqlDatabase } from '../../db/database.js';

export interface NewSession {
  idHash: string;
  userId: number;
  /** Fingerprint of the user's password hash at login; a different one means the password changed. */
  passwordStamp: string;
  createdMs: number;
  lastSeenMs: number;
  /** The absolute end, whatever the use. */
  expiresMs: number;
}

/** A session with what its user is now. */
export interface SessionRecord extends NewSession {
  username: string;
  globalAdmin: boolean;
  /** The user's password hash now (null once it was removed). */
  passwordHash: string | null;
}

export interface SessionsStore {
  create(session: NewSession): Promise<void>;
  /** The session and its user; undefined when there is neither (a deleted user takes their sessions along). */
  find(idHash: string): Promise<SessionRecord | undefined>;
  /** Notes use of the session at `lastSeenMs`. */
  touch(idHash: string, lastSeenMs: number): Promise<void>;
  /** False when there was no such session. */
  delete(idHash: string): Promise<boolean>;
  /** Deletes every session past its absolute end at `nowMs` or last seen at or before `idleSinceMs`; returns how many. */
  deleteEnded(nowMs: number, idleSinceMs: number): Promise<number>;
}

interface SessionRow {
  id_hash: string;
  user_id: number;
  password_stamp: string;
  created_ms: number;
  last_seen_ms: number;
  expires_ms: number;
  username: string;
  global_admin: number | boolean;
  password_hash: string | null;
}

export class SqlSessionsStore implements SessionsStore {
  constructor(private readonly db: SqlDatabase) {}

  async create(session: NewSession): Promise<void> {
    await this.db.run(
      `INSERT INTO user_sessions (id_hash, user_id, password_stamp, created_ms, last_seen_ms, expires_ms)
       VALUES (?, ?, ?, ?, ?, ?)`,
      [session.idHash, session.userId, session.passwordStamp, session.createdMs, session.lastSeenMs, session.expiresMs],
    );
  }

  async find(idHash: string): Promise<SessionRecord | undefined> {
    const row = await this.db.get<SessionRow>(
      `SELECT s.id_hash, s.user_id, s.password_stamp, s.created_ms, s.last_seen_ms, s.expires_ms,
              u.username, u.global_admin, u.password_hash
       FROM user_sessions s JOIN users u ON u.id = s.user_id WHERE s.id_hash = ?`,
      [idHash],
    );
    if (!row) return undefined;
    return {
      idHash: row.id_hash,
      userId: Number(row.user_id),
      passwordStamp: row.password_stamp,
      createdMs: Number(row.created_ms),
      lastSeenMs: Number(row.last_seen_ms),
      expiresMs: Number(row.expires_ms),
      username: row.username,
      globalAdmin: Boolean(row.global_admin),
      passwordHash: row.password_hash,
    };
  }

  async touch(idHash: string, lastSeenMs: number): Promise<void> {
    await this.db.run('UPDATE user_sessions SET last_seen_ms = ? WHERE id_hash = ?', [lastSeenMs, idHash]);
  }

  async delete(idHash: string): Promise<boolean> {
    const { changes } = await this.db.run('DELETE FROM user_sessions WHERE id_hash = ?', [idHash]);
    return changes > 0;
  }

  async deleteEnded(nowMs: number, idleSinceMs: number): Promise<number> {
    const { changes } = await this.db.run(
      'DELETE FROM user_sessions WHERE expires_ms <= ? OR last_seen_ms <= ?',
      [nowMs, idleSinceMs],
    );
    return changes;
  }
}
