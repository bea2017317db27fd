/**
 * The forwarder's outputs and, per output and source, its cursor: the key of the last record the
 * output delivered (forwarder-sources.ts), with counts and the last error for its status. The
 * cursor moves only after a batch was delivered, so a restart repeats at most that batch.
 */
import type { SqlDatabase } from '../../db/database.js';
import { UniqueViolation } from '../../db/errors.js';
import { ConflictError } from '../../domain/errors.js';
import type { Position } from './forwarder-sources.js';

export interface OutputDefinition {
  name: string;
  enabled: boolean;
  kind: string;
  format: string;
  /** The kind's settings (path, URL, token …), as the service validated them. */
  settings: Record<string, unknown>;
  /** Source names, and for raw events the event types (forwarder.service.ts). */
  sources: Record<string, unknown>;
}

export interface OutputRecord extends OutputDefinition {
  id: number;
  createdMs: number;
  updatedMs: number;
}

export interface CursorRecord {
  source: string;
  position: Position;
  forwarded: number;
  lastSuccessMs: number | null;
  lastError: string | null;
  lastErrorMs: number | null;
}

export interface ForwarderStore {
  create(output: OutputDefinition, nowMs: number): Promise<OutputRecord>;
  list(): Promise<OutputRecord[]>;
  get(id: number): Promise<OutputRecord | undefined>;
  /** False when there is no such output. */
  update(id: number, output: OutputDefinition, nowMs: number): Promise<boolean>;
  /** Removes the output and its cursors; false when there is none. */
  remove(id: number): Promise<boolean>;
  cursors(outputId: number): Promise<CursorRecord[]>;
  /** Records that `count` records up to `position` were delivered; clears the last error. */
  advance(outputId: number, source: string, position: Position, count: number, nowMs: number): Promise<void>;
  /** Records a failed delivery; the cursor stays where it was (created at `position` if new). */
  failed(outputId: number, source: string, position: Position, error: string, nowMs: number): Promise<void>;
}

interface OutputRow {
  id: number; name: string; enabled: number; kind: string; format: string; settings: string; sources: string;
  created_ms: number; updated_ms: number;
}

const toOutput = (row: OutputRow): OutputRecord => ({
  id: row.id, name: row.name, enabled: row.enabled === 1, kind: row.kind, format: row.format,
  settings: JSON.parse(row.settings) as Record<string, unknown>, sources: JSON.parse(row.sources) as Record<string, unknown>,
  createdMs: row.created_ms, updatedMs: row.updated_ms,
});

/** Saved outputs are named uniquely, so that the status and the logs can say which one. */
async function unique<T>(name: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof UniqueViolation) throw new ConflictError(`A forwarder output named ${JSON.stringify(name)} exists already`);
    throw error;
  }
}

export class SqlForwarderStore implements ForwarderStore {
  constructor(private readonly db: SqlDatabase) {}

  create(output: OutputDefinition, nowMs: number): Promise<OutputRecord> {
    return unique(output.name, async () => toOutput((await this.db.get<OutputRow>(
      `INSERT INTO forwarder_outputs (name, enabled, kind, format, settings, sources, created_ms, updated_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      [output.name, output.enabled ? 1 : 0, output.kind, output.format, JSON.stringify(output.settings), JSON.stringify(output.sources), nowMs, nowMs],
    ))!));
  }

  async list(): Promise<OutputRecord[]> {
    return (await this.db.all<OutputRow>('SELECT * FROM forwarder_outputs ORDER BY id')).map(toOutput);
  }

  async get(id: number): Promise<OutputRecord | undefined> {
    const row = await this.db.get<OutputRow>('SELECT * FROM forwarder_outputs WHERE id = ?', [id]);
    return row === undefined ? undefined : toOutput(row);
  }

  update(id: number, output: OutputDefinition, nowMs: number): Promise<boolean> {
    return unique(output.name, async () => (await this.db.run(
      `UPDATE forwarder_outputs SET name = ?, enabled = ?, kind = ?, format = ?, settings = ?, sources = ?, updated_ms = ? WHERE id = ?`,
      [output.name, output.enabled ? 1 : 0, output.kind, output.format, JSON.stringify(output.settings), JSON.stringify(output.sources), nowMs, id],
    )).changes === 1);
  }

  async remove(id: number): Promise<boolean> {
    return (await this.db.run('DELETE FROM forwarder_outputs WHERE id = ?', [id])).changes === 1;
  }

  async cursors(outputId: number): Promise<CursorRecord[]> {
    const rows = await this.db.all<{
      source: string; position: string; forwarded: number; last_success_ms: number | null; last_error: string | null; last_error_ms: number | null;
    }>('SELECT source, position, forwarded, last_success_ms, last_error, last_error_ms FROM forwarder_cursors WHERE output_id = ? ORDER BY source', [outputId]);
    return rows.map((row) => ({
      source: row.source, position: JSON.parse(row.position) as Position, forwarded: row.forwarded,
      lastSuccessMs: row.last_success_ms, lastError: row.last_error, lastErrorMs: row.last_error_ms,
    }));
  }

  async advance(outputId: number, source: string, position: Position, count: number, nowMs: number): Promise<void> {
    await this.db.run(
      `INSERT INTO forwarder_cursors (output_id, source, position, forwarded, last_success_ms, last_error, last_error_ms)
       VALUES (?, ?, ?, ?, ?, NULL, NULL)
       ON CONFLICT (output_id, source) DO UPDATE SET position = excluded.position,
         forwarded = forwarder_cursors.forwarded + excluded.forwarded, last_success_ms = excluded.last_success_ms,
         last_error = NULL, last_error_ms = NULL`,
      [outputId, source, JSON.stringify(position), count, nowMs],
    );
  }

  async failed(outputId: number, source: string, position: Position, error: string, nowMs: number): Promise<void> {
    await this.db.run(
      `INSERT INTO forwarder_cursors (output_id, source, position, forwarded, last_error, last_error_ms) VALUES (?, ?, ?, 0, ?, ?)
       ON CONFLICT (output_id, source) DO UPDATE SET last_error = excluded.last_error, last_error_ms = excluded.last_error_ms`,
      [outputId, source, JSON.stringify(position), error, nowMs],
    );
  }
}
