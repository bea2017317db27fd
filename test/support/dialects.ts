/**
 * Store contract suites run once per dialect, each on a real database. SQLite runs on a fresh
 * file per database; the PostgreSQL dialect joins this list when it exists.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe } from 'node:test';
import type { SqlDatabase } from '../../src/db/database.js';
import { SqliteDatabase } from '../../src/db/dialects/sqlite.js';
import { migrate } from '../../src/db/migrate.js';
import { sqliteMigrations } from '../../src/db/migrations/sqlite.js';
import { tempDir } from './temp.js';

export interface Dialect {
  name: string;
  /** A fresh, migrated, empty database (the seeded default site and group only). */
  freshDatabase(): Promise<SqlDatabase>;
}

const sqlite: Dialect = {
  name: 'sqlite',
  async freshDatabase() {
    const dir = tempDir('vigil-store-');
    const db = SqliteDatabase.open(join(dir, 'store.db'));
    await migrate(db, sqliteMigrations);
    const close = db.close.bind(db);
    db.close = async () => {
      await close();
      rmSync(dir, { recursive: true, force: true });
    };
    return db;
  },
};

export const dialects: readonly Dialect[] = [sqlite];

/** Declares `suite` once per dialect; `fresh()` gives each test its own database, closed after the suite. */
export function forEachDialect(suite: (fresh: () => Promise<SqlDatabase>) => void): void {
  for (const dialect of dialects) {
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
