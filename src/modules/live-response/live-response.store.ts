/**
 * Live-response sessions, their commands and files. Written once against SqlDatabase;
 * live-response.store.contract.ts is the contract every dialect must pass. The instructions that
 * carry sessions and commands to sensors live in the sensors store: this one keeps their ids.
 */
import type { SqlDatabase, SqlExecutor } from '../../db/database.js';
import { TIMED_OUT } from './live-response-commands.js';
import type { CommandName, CommandOutput, CommandStatus, SessionStatus } from './live-response.schemas.js';
import {
  OPEN, SESSION_COLUMNS, commandWhere, endSession, finishCommand, insertFile, sessionById, toFile, toSession, type FileRow, type SessionRow,
} from './live-response-sql.js';

/** What the sensor said when it attached. */
export interface AttachFacts {
  supportedCommands: string[];
  drives: string[];
  currentWorkingDirectory: string;
}

export interface SessionRecord {
  id: number;
  sensorId: number;
  status: SessionStatus;
  userId: number;
  username: string;
  createdMs: number;
  attachedMs: number | null;
  /** The latest API use of the session (its idle time counts from here). */
  lastActivityMs: number;
  /** The sensor's latest check-in while the session was open. */
  sensorSeenMs: number | null;
  endedMs: number | null;
  instructionId: number | null;
  attach: AttachFacts | null;
  /** Bytes held in the session's files. */
  storageBytes: number;
}

export type NewSession = Pick<SessionRecord, 'sensorId' | 'userId' | 'username'> & { nowMs: number };

export interface CommandRequest {
  object?: string | number | undefined;
  /** The options posted with the command (create process, memdump, reg set value). */
  options: Record<string, unknown>;
}

export interface CommandOutcome {
  resultCode: number;
  resultType: string;
  resultDesc: string;
  output: CommandOutput;
}

export interface CommandRecord {
  id: number;
  sessionId: number;
  sensorId: number;
  name: CommandName;
  request: CommandRequest;
  status: CommandStatus;
  username: string;
  createdMs: number;
  completedMs: number | null;
  instructionId: number | null;
  fileId: number | null;
  outcome: CommandOutcome | null;
}

export type NewCommand = Pick<CommandRecord, 'sessionId' | 'sensorId' | 'name' | 'request' | 'username' | 'fileId'> & { nowMs: number };

export interface FileRecord {
  id: number;
  sessionId: number;
  fileName: string;
  /** null until the content has arrived. */
  size: number | null;
  createdMs: number;
}

export interface ExpiryLimits {
  /** A pending session times out this long after creation, an active one when its sensor is silent this long. */
  checkinTimeoutMs: number;
  /** An active session times out after this long without API use. */
  sessionTimeoutMs: number;
  /** A pending command errs this long after its session could pass it on (creation, or the attach if later). */
  commandTimeoutMs: number;
}

export interface LiveResponseStore {
  /** The sensor's open (pending or active) session, or a new pending one; `created` tells which. */
  openSession(session: NewSession): Promise<{ session: SessionRecord; created: boolean }>;
  setSessionInstruction(sessionId: number, instructionId: number): Promise<void>;
  getSession(id: number): Promise<SessionRecord | undefined>;
  /** Every session, or the open ones, by id. */
  listSessions(openOnly: boolean): Promise<SessionRecord[]>;
  /** The sensor's pending and active sessions. */
  openSessionsOf(sensorId: number): Promise<SessionRecord[]>;
  /** Records API use of an open session. */
  touch(sessionId: number, nowMs: number): Promise<void>;
  /** Records a check-in of the sensor on its open sessions. */
  sensorSeen(sensorId: number, nowMs: number): Promise<void>;
  /** pending → active with what the sensor said; false when the session is not pending. */
  attach(sessionId: number, facts: AttachFacts, nowMs: number): Promise<boolean>;
  /**
   * Ends an open session: its pending commands end cancelled (a client's close) or timed out
   * (timeout, error). The ids of the instructions of the session and of those commands, for the
   * caller to withdraw; undefined when the session was not open.
   */
  endSession(sessionId: number, status: 'close' | 'timeout' | 'error', nowMs: number): Promise<number[] | undefined>;
  /** Times out what is past its limits (of one sensor, or all); the instruction ids to withdraw. */
  expire(nowMs: number, limits: ExpiryLimits, sensorId?: number): Promise<number[]>;
  /** A pending command; with a get file, its file (named after the object) is created in the same transaction. */
  createCommand(command: NewCommand, fetchFileName?: string): Promise<CommandRecord>;
  setCommandInstruction(commandId: number, instructionId: number): Promise<void>;
  getCommand(sessionId: number, commandId: number): Promise<CommandRecord | undefined>;
  listCommands(sessionId: number): Promise<CommandRecord[]>;
  /** The sensor's pending commands sent as these instructions. */
  pendingCommandsByInstruction(sensorId: number, instructionIds: readonly number[]): Promise<CommandRecord[]>;
  /** pending → complete or error; false when it was no longer pending. */
  finishCommand(commandId: number, status: 'complete' | 'error', outcome: CommandOutcome, nowMs: number): Promise<boolean>;
  createFile(sessionId: number, fileName: string, nowMs: number): Promise<FileRecord>;
  fileArrived(fileId: number, size: number): Promise<void>;
  getFile(sessionId: number, fileId: number): Promise<FileRecord | undefined>;
  listFiles(sessionId: number): Promise<FileRecord[]>;
  /** The file and the command that moves it, when that command is the sensor's and still pending. */
  fileInTransit(sensorId: number, fileId: number): Promise<{ file: FileRecord; command: CommandRecord } | undefined>;
  /** Forgets files created before this time; their ids, for the caller to delete the content. */
  dropFilesCreatedBefore(ms: number): Promise<number[]>;
}

export class SqlLiveResponseStore implements LiveResponseStore {
  constructor(private readonly db: SqlDatabase) {}

  async openSession(session: NewSession): Promise<{ session: SessionRecord; created: boolean }> {
    return this.db.transaction(async (tx) => {
      const open = await tx.get<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM live_response_sessions s WHERE sensor_id = ? AND ${OPEN} ORDER BY id LIMIT 1`, [session.sensorId]);
      if (open) return { session: toSession(open), created: false };
      const row = await tx.get<{ id: number }>(
        `INSERT INTO live_response_sessions (sensor_id, status, user_id, username, created_ms, last_activity_ms)
         VALUES (?, 'pending', ?, ?, ?, ?) RETURNING id`,
        [session.sensorId, session.userId, session.username, session.nowMs, session.nowMs],
      );
      return { session: (await sessionById(tx, row!.id))!, created: true };
    });
  }

  async setSessionInstruction(sessionId: number, instructionId: number): Promise<void> {
    await this.db.run('UPDATE live_response_sessions SET instruction_id = ? WHERE id = ?', [instructionId, sessionId]);
  }

  getSession(id: number): Promise<SessionRecord | undefined> {
    return sessionById(this.db, id);
  }

  async listSessions(openOnly: boolean): Promise<SessionRecord[]> {
    const rows = await this.db.all<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM live_response_sessions s ${openOnly ? `WHERE ${OPEN}` : ''} ORDER BY id`);
    return rows.map(toSession);
  }

  async openSessionsOf(sensorId: number): Promise<SessionRecord[]> {
    const rows = await this.db.all<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM live_response_sessions s WHERE sensor_id = ? AND ${OPEN} ORDER BY id`, [sensorId]);
    return rows.map(toSession);
  }

  async touch(sessionId: number, nowMs: number): Promise<void> {
    await this.db.run(`UPDATE live_response_sessions SET last_activity_ms = ? WHERE id = ? AND ${OPEN}`, [nowMs, sessionId]);
  }

  async sensorSeen(sensorId: number, nowMs: number): Promise<void> {
    await this.db.run(`UPDATE live_response_sessions SET sensor_seen_ms = ? WHERE sensor_id = ? AND ${OPEN}`, [nowMs, sensorId]);
  }

  async attach(sessionId: number, facts: AttachFacts, nowMs: number): Promise<boolean> {
    const { changes } = await this.db.run(
      `UPDATE live_response_sessions SET status = 'active', attach = ?, attached_ms = ?, last_activity_ms = ?, sensor_seen_ms = ?
       WHERE id = ? AND status = 'pending'`,
      [JSON.stringify(facts), nowMs, nowMs, nowMs, sessionId],
    );
    return changes > 0;
  }

  endSession(sessionId: number, status: 'close' | 'timeout' | 'error', nowMs: number): Promise<number[] | undefined> {
    return this.db.transaction((tx) => endSession(tx, sessionId, status, nowMs));
  }

  async expire(nowMs: number, limits: ExpiryLimits, sensorId?: number): Promise<number[]> {
    // Looked for first without the write lock: nearly always nothing is due.
    const due = await dueForTimeout(this.db, nowMs, limits, sensorId);
    if (due.sessions.length === 0 && due.commands.length === 0) return [];
    return this.db.transaction(async (tx) => {
      const { sessions, commands } = await dueForTimeout(tx, nowMs, limits, sensorId);
      const withdraw: number[] = [];
      for (const id of sessions) withdraw.push(...((await endSession(tx, id, 'timeout', nowMs)) ?? []));
      for (const command of commands) {
        await finishCommand(tx, command.id, 'error', TIMED_OUT, nowMs);
        if (command.instruction_id !== null) withdraw.push(command.instruction_id);
      }
      return withdraw;
    });
  }

  createCommand(command: NewCommand, fetchFileName?: string): Promise<CommandRecord> {
    return this.db.transaction(async (tx) => {
      const fileId = fetchFileName === undefined ? command.fileId : (await insertFile(tx, command.sessionId, fetchFileName, command.nowMs)).id;
      const row = await tx.get<{ id: number }>(
        `INSERT INTO live_response_commands (session_id, sensor_id, name, request, status, username, created_ms, file_id)
         VALUES (?, ?, ?, ?, 'pending', ?, ?, ?) RETURNING id`,
        [command.sessionId, command.sensorId, command.name, JSON.stringify(command.request), command.username, command.nowMs, fileId],
      );
      return (await commandWhere(tx, 'id = ?', [row!.id]))[0]!;
    });
  }

  async setCommandInstruction(commandId: number, instructionId: number): Promise<void> {
    await this.db.run('UPDATE live_response_commands SET instruction_id = ? WHERE id = ?', [instructionId, commandId]);
  }

  async getCommand(sessionId: number, commandId: number): Promise<CommandRecord | undefined> {
    return (await commandWhere(this.db, 'session_id = ? AND id = ?', [sessionId, commandId]))[0];
  }

  listCommands(sessionId: number): Promise<CommandRecord[]> {
    return commandWhere(this.db, 'session_id = ?', [sessionId]);
  }

  async pendingCommandsByInstruction(sensorId: number, instructionIds: readonly number[]): Promise<CommandRecord[]> {
    if (instructionIds.length === 0) return [];
    return commandWhere(
      this.db, `sensor_id = ? AND status = 'pending' AND instruction_id IN (${instructionIds.map(() => '?').join(', ')})`, [sensorId, ...instructionIds],
    );
  }

  finishCommand(commandId: number, status: 'complete' | 'error', outcome: CommandOutcome, nowMs: number): Promise<boolean> {
    return finishCommand(this.db, commandId, status, outcome, nowMs);
  }

  createFile(sessionId: number, fileName: string, nowMs: number): Promise<FileRecord> {
    return insertFile(this.db, sessionId, fileName, nowMs);
  }

  async fileArrived(fileId: number, size: number): Promise<void> {
    await this.db.run('UPDATE live_response_files SET size = ? WHERE id = ?', [size, fileId]);
  }

  async getFile(sessionId: number, fileId: number): Promise<FileRecord | undefined> {
    const row = await this.db.get<FileRow>('SELECT * FROM live_response_files WHERE session_id = ? AND id = ?', [sessionId, fileId]);
    return row && toFile(row);
  }

  async listFiles(sessionId: number): Promise<FileRecord[]> {
    return (await this.db.all<FileRow>('SELECT * FROM live_response_files WHERE session_id = ? ORDER BY id', [sessionId])).map(toFile);
  }

  async fileInTransit(sensorId: number, fileId: number): Promise<{ file: FileRecord; command: CommandRecord } | undefined> {
    const [command] = await commandWhere(this.db, `sensor_id = ? AND file_id = ? AND status = 'pending'`, [sensorId, fileId]);
    if (!command) return undefined;
    const file = await this.getFile(command.sessionId, fileId);
    return file && { file, command };
  }

  async dropFilesCreatedBefore(ms: number): Promise<number[]> {
    const rows = await this.db.all<{ id: number }>('DELETE FROM live_response_files WHERE created_ms < ? RETURNING id', [ms]);
    return rows.map((row) => row.id);
  }
}

/** Open sessions and pending commands past their limits (of one sensor, or all). */
async function dueForTimeout(db: SqlExecutor, nowMs: number, limits: ExpiryLimits, sensorId?: number) {
  const ofSensor = sensorId === undefined ? '' : ' AND s.sensor_id = ?';
  const sensorParam = sensorId === undefined ? [] : [sensorId];
  const silentSince = nowMs - limits.checkinTimeoutMs;
  const sessions = await db.all<{ id: number }>(
    `SELECT id FROM live_response_sessions s WHERE ${OPEN} AND (
       (status = 'pending' AND created_ms <= ?) OR
       (status = 'active' AND (last_activity_ms <= ? OR COALESCE(sensor_seen_ms, attached_ms) <= ?))
     )${ofSensor}`,
    [silentSince, nowMs - limits.sessionTimeoutMs, silentSince, ...sensorParam],
  );
  const commands = await db.all<{ id: number; instruction_id: number | null }>(
    `SELECT c.id, c.instruction_id FROM live_response_commands c JOIN live_response_sessions s ON s.id = c.session_id
     WHERE c.status = 'pending' AND s.status = 'active'
       AND (CASE WHEN c.created_ms > s.attached_ms THEN c.created_ms ELSE s.attached_ms END) <= ?${ofSensor}`,
    [nowMs - limits.commandTimeoutMs, ...sensorParam],
  );
  return { sessions: sessions.map((row) => row.id), commands };
}
