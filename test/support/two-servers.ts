/**
 * Two "servers" on one database, for the mechanisms that must work across Vigil servers before
 * two whole servers can run on PostgreSQL: each has its own connections (a pool of its own on
 * PostgreSQL, a connection of its own to the same file on SQLite), so nothing passes between them
 * but the database.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { SqlDatabase } from '../../src/db/database.js';
import { PostgresDatabase } from '../../src/db/dialects/postgres.js';
import { SqliteDatabase } from '../../src/db/dialects/sqlite.js';
import { migrate } from '../../src/db/migrate.js';
import { postgresMigrations } from '../../src/db/migrations/postgres.js';
import { sqliteMigrations } from '../../src/db/migrations/sqlite.js';
import type { DialectName } from './dialects.js';
import { dropTestDatabase, freshTestDatabase } from './postgres.js';
import { tempDir } from './temp.js';

export interface TwoServers<D extends SqlDatabase = SqlDatabase> {
  a: D;
  b: D;
  /** Closes whichever of the two is still open and removes the database. */
  close(): Promise<void>;
}

async function migrated(url: string): Promise<void> {
  const db = PostgresDatabase.open(url, { poolSize: 1 });
  try {
    await migrate(db, postgresMigrations);
  } finally {
    await db.close();
  }
}

/** Closing twice is harmless, so a test may "kill" one server before the end. */
function closeOnce<D extends SqlDatabase>(db: D): D {
  const close = db.close.bind(db);
  let closed: Promise<void> | undefined;
  db.close = () => (closed ??= close());
  return db;
}

export async function twoPostgresServers(): Promise<TwoServers<PostgresDatabase> & { url: string }> {
  const { name, url } = await freshTestDatabase('two-servers', migrated);
  const [a, b] = [1, 2].map((n) => closeOnce(PostgresDatabase.open(url, { poolSize: 4, applicationName: `vigil-test-server-${n}` })));
  return {
    a: a!, b: b!, url,
    async close() {
      await Promise.all([a!.close(), b!.close()]);
      await dropTestDatabase(name);
    },
  };
}

export async function twoSqliteServers(): Promise<TwoServers> {
  const dir = tempDir('vigil-two-');
  const file = join(dir, 'store.db');
  const a = closeOnce(SqliteDatabase.open(file));
  await migrate(a, sqliteMigrations);
  const b = closeOnce(SqliteDatabase.open(file));
  return {
    a, b,
    async close() {
      await Promise.all([a.close(), b.close()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function twoServers(dialect: DialectName): Promise<TwoServers> {
  return dialect === 'postgres' ? twoPostgresServers() : twoSqliteServers();
}
