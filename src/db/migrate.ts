/**
 * Brings a database up to the newest schema this build knows, one migration per transaction, and
 * refuses to open a database written by a newer build (its data could be misread).
 */
import type { SqlDatabase } from './database.js';
import type { Migration } from './migrations/types.js';

export class SchemaTooNewError extends Error {}

/** What a run of `migrate` found and did: the schema version before and after, and each migration it applied. */
export interface MigrationReport {
  from: number;
  to: number;
  applied: readonly Migration[];
}

export async function migrate(db: SqlDatabase, migrations: readonly Migration[]): Promise<MigrationReport> {
  await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`);
  const row = await db.get<{ version: number | null }>('SELECT MAX(version) AS version FROM schema_migrations');
  const current = row?.version ?? 0;
  const newest = migrations.at(-1)?.version ?? 0;
  if (current > newest) {
    throw new SchemaTooNewError(
      `The database is at schema version ${current}, newer than this build of Vigil knows (${newest}). Upgrade Vigil.`,
    );
  }
  const pending = migrations.filter((m) => m.version > current);
  for (const migration of pending) {
    await db.transaction(async (tx) => {
      for (const statement of splitStatements(migration.sql)) await tx.run(statement);
      await tx.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [
        migration.version,
        migration.name,
        new Date().toISOString(),
      ]);
    });
  }
  return { from: current, to: newest, applied: pending };
}

/**
 * Migration scripts hold DDL/DML separated by semicolons at line ends. A dollar-quoted body
 * (PostgreSQL's DO $$ … $$) is kept whole: its own semicolons end its inner statements, not the
 * script's.
 */
function splitStatements(script: string): string[] {
  const statements: string[] = [];
  let current = '';
  for (const [index, part] of script.split('$$').entries()) {
    if (index % 2 === 1) {
      current += `$$${part}$$`;
      continue;
    }
    const [first, ...rest] = part.split(/;\s*(?:\n|$)/);
    current += first;
    for (const next of rest) {
      statements.push(current);
      current = next;
    }
  }
  statements.push(current);
  return statements
    .map((statement) => statement.replace(/^\s*--.*$/gm, '').trim())
    .filter((statement) => statement.length > 0);
}
