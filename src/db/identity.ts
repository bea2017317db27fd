/**
 * A row inserted with an id of its own choosing, in a table whose ids are otherwise generated:
 * later generated ids must come after it. SQLite's AUTOINCREMENT sees to that itself; a
 * PostgreSQL identity's sequence does not move for an id it did not hand out, so it is moved
 * here (never back: an id lower than the sequence's leaves it where it is).
 */
import type { SqlDialect, SqlExecutor } from './database.js';

export async function afterChosenId(db: SqlExecutor, dialect: SqlDialect, table: string, id: number): Promise<void> {
  if (dialect === 'sqlite') return;
  await db.get(
    `SELECT setval(pg_get_serial_sequence(?, 'id'), ?)
     WHERE ? > coalesce(pg_sequence_last_value(pg_get_serial_sequence(?, 'id')::regclass), 0)`,
    [table, id, id, table],
  );
}
