/**
 * Store contract suites run once per dialect, each on a real database. SQLite runs on a fresh
 * file per database; PostgreSQL on a fresh database copied from a migrated template
 * (test/support/postgres.ts).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe } from 'node:test';
import type { SqlDatabase } from '../../src/db/database.js';
import { PostgresDatabase } from '../../src/db/dialects/postgres.js';
import { SqliteDatabase } from '../../src/db/dialects/sqlite.js';
import { migrate } from '../../src/db/migrate.js';
import { postgresMigrations } from '../../src/db/migrations/postgres.js';
import { sqliteMigrations } from '../../src/db/migrations/sqlite.js';
import { dropTestDatabase, freshTestDatabase } from './postgres.js';
import { tempDir } from './temp.js';

export type DialectName = SqlDatabase['dialect'];

export interface Dialect {
  name: DialectName;
  /** A fresh, migrated, empty database (the seeded default site and group only). */
  freshDatabase(): Promise<SqlDatabase>;
}

/** Closing `db` also runs `cleanup` (removes its file or drops its database). */
function closingWith<T extends SqlDatabase>(db: T, cleanup: () => void | Promise<void>): T {
  const close = db.close.bind(db);
  db.close = async () => {
    await close();
    await cleanup();
  };
  return db;
}

const sqlite: Dialect = {
  name: 'sqlite',
  async freshDatabase() {
    const dir = tempDir('vigil-store-');
    const db = SqliteDatabase.open(join(dir, 'store.db'));
    await migrate(db, sqliteMigrations);
    return closingWith(db, () => rmSync(dir, { recursive: true, force: true }));
  },
};

async function migratePostgres(url: string): Promise<void> {
  const db = PostgresDatabase.open(url, { poolSize: 1 });
  try {
    await migrate(db, postgresMigrations);
  } finally {
    await db.close();
  }
}

/** A fresh database at the newest schema, by name and URL, for a server to open itself (drop it with dropTestDatabase). */
export function freshMigratedDatabase(): Promise<{ name: string; url: string }> {
  return freshTestDatabase('migrated', migratePostgres);
}

/** A fresh PostgreSQL database at the newest schema, copied from a migrated template, dropped when closed. */
export async function freshMigratedPostgres(): Promise<PostgresDatabase> {
  const { name, url } = await freshMigratedDatabase();
  return closingWith(PostgresDatabase.open(url, { poolSize: 4 }), () => dropTestDatabase(name));
}

const postgres: Dialect = { name: 'postgres', freshDatabase: freshMigratedPostgres };

export const dialects: readonly Dialect[] = [sqlite, postgres];

export interface DialectOptions {
  /** Dialects the suite does not run on yet, each with the reason (shown as the skip message). */
  skip?: Partial<Record<DialectName, string>>;
}

/** Declares `suite` once per dialect; `fresh()` gives each test its own database, closed after the suite. */
export function forEachDialect(suite: (fresh: () => Promise<SqlDatabase>) => void, options: DialectOptions = {}): void {
  for (const dialect of dialects) {
    const skipped = options.skip?.[dialect.name];
    if (skipped !== undefined) {
      describe(dialect.name, { skip: skipped }, () => undefined);
      continue;
    }
    describe(dialect.name, () => {
      const opened: SqlDatabase[] = [];
      after(async () => {
        for (const db of opened) await db.close();
      });
      suite(async () => {
        const db = await dialect.freshDatabase();
        opened.push(db);
        return db;
      });
    });
  }
}
