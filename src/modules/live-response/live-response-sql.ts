/** The SQL side of SqlLiveResponseStore: rows of its tables, how they map to records, and the statements shared by its methods. */
import type { SqlExecutor } from '../../db/database.js';
import type { CommandName, CommandStatus, SessionStatus } from './live-response.schemas.js';
import { TIMED_OUT } from './live-response-commands.js';
import type { CommandOutcome, CommandRecord, FileRecord, SessionRecord } from './live-response.store.js';

export const OPEN = `status IN ('pending', 'active')`;
export const SESSION_COLUMNS = `s.*, (SELECT COALESCE(SUM(size), 0) FROM live_response_files f WHERE f.session_id = s.id) AS storage_bytes`;

export interface SessionRow {
  id: number; sensor_id: number; status: SessionStatus; user_id: number; username: string; created_ms: number;
  attached_ms: number | null; last_activity_ms: number; sensor_seen_ms: number | null; ended_ms: number | null;
  instruction_id: number | null; attach: string | null; storage_bytes: number;
}

export interface CommandRow {
  id: number; session_id: number; sensor_id: number; name: CommandName; request: string; status: CommandStatus; username: string;
  created_ms: number; completed_ms: number | null; instruction_id: number | null; file_id: number | null; outcome: string | null;
}

export interface FileRow { id: number; session_id: number; file_name: string; size: number | null; created_ms: number }

export function toSession(row: SessionRow): SessionRecord {
  return {
    id: row.id, sensorId: row.sensor_id, status: row.status, userId: row.user_id, username: row.username, createdMs: row.created_ms,
    attachedMs: row.attached_ms, lastActivityMs: row.last_activity_ms, sensorSeenMs: row.sensor_seen_ms, endedMs: row.ended_ms,
    instructionId: row.instruction_id, attach: row.attach === null ? null : JSON.parse(row.attach), storageBytes: Number(row.storage_bytes),
  };
}

export function toCommand(row: CommandRow): CommandRecord {
  return {
    id: row.id, sessionId: row.session_id, sensorId: row.sensor_id, name: row.name, request: JSON.parse(row.request), status: row.status,
    username: row.username, createdMs: row.created_ms, completedMs: row.completed_ms, instructionId: row.instruction_id, fileId: row.file_id,
    outcome: row.outcome === null ? null : JSON.parse(row.outcome),
  };
}

export function toFile(row: FileRow): FileRecord {
  return { id: row.id, sessionId: row.session_id, fileName: row.file_name, size: row.size, createdMs: row.created_ms };
}

export async function sessionById(db: SqlExecutor, id: number): Promise<SessionRecord | undefined> {
  const row = await db.get<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM live_response_sessions s WHERE id = ?`, [id]);
  return row && toSession(row);
}

export async function endSession(tx: SqlExecutor, sessionId: number, status: 'close' | 'timeout' | 'error', nowMs: number): Promise<number[] | undefined> {
  const ended = await tx.get<{ instruction_id: number | null }>(
    `UPDATE live_response_sessions SET status = ?, ended_ms = ? WHERE id = ? AND ${OPEN} RETURNING instruction_id`,
    [status, nowMs, sessionId],
  );
  if (!ended) return undefined;
  const pending = await tx.all<{ instruction_id: number | null }>(
    `UPDATE live_response_commands SET status = ?, completed_ms = ?, outcome = ?
     WHERE session_id = ? AND status = 'pending' RETURNING instruction_id`,
    [status === 'close' ? 'cancel' : 'error', nowMs, status === 'close' ? null : JSON.stringify(TIMED_OUT), sessionId],
  );
  return [ended.instruction_id, ...pending.map((row) => row.instruction_id)].filter((id): id is number => id !== null);
}

export async function finishCommand(db: SqlExecutor, commandId: number, status: 'complete' | 'error', outcome: CommandOutcome, nowMs: number): Promise<boolean> {
  const { changes } = await db.run(
    `UPDATE live_response_commands SET status = ?, completed_ms = ?, outcome = ? WHERE id = ? AND status = 'pending'`,
    [status, nowMs, JSON.stringify(outcome), commandId],
  );
  return changes > 0;
}

export async function commandWhere(db: SqlExecutor, where: string, params: (string | number)[]): Promise<CommandRecord[]> {
  const rows = await db.all<CommandRow>(`SELECT * FROM live_response_commands WHERE ${where} ORDER BY id`, params);
  return rows.map(toCommand);
}

export async function insertFile(db: SqlExecutor, sessionId: number, fileName: string, nowMs: number): Promise<FileRecord> {
  const row = await db.get<FileRow>(
    'INSERT INTO live_response_files (session_id, file_name, created_ms) VALUES (?, ?, ?) RETURNING *',
    [sessionId, fileName, nowMs],
  );
  return toFile(row!);
}
