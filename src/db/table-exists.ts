/** Whether a table exists, asked of each dialect's own catalog. */
import type { SqlDialect, SqlExecutor } from './database.js';

const QUESTION: Readonly<Record<SqlDialect, string>> = {
  sqlite: "SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = ?",
  postgres: 'SELECT 1 AS found WHERE to_regclass(?) IS NOT NULL',
};

export async function tableExists(db: SqlExecutor, dialect: SqlDialect, table: string): Promise<boolean> {
  return (await db.get(QUESTION[dialect], [table])) !== undefined;
}
