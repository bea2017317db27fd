import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../../test/support/temp.js';
import { SqliteDatabase } from './dialects/sqlite.js';
import { SchemaTooNewError, migrate } from './migrate.js';
import { sqliteMigrations } from './migrations/sqlite.js';

describe('migrations', () => {
  it('apply once, survive a reopen, and seed the default site and group', async () => {
    const dir = tempDir();
    const file = join(dir, 'vigil.db');
    try {
      const first = SqliteDatabase.open(file);
      const newest = sqliteMigrations.at(-1)!.version;
      assert.deepEqual(await migrate(first, sqliteMigrations), { from: 0, to: newest, applied: sqliteMigrations });
      await first.close();
      const second = SqliteDatabase.open(file);
      assert.deepEqual(await migrate(second, sqliteMigrations), { from: newest, to: newest, applied: [] });
      const applied = await second.all<{ version: number }>('SELECT version FROM schema_migrations');
      assert.deepEqual(applied.map((r) => r.version), sqliteMigrations.map((m) => m.version));
      assert.deepEqual(await second.get('SELECT id, name FROM sites'), { id: 1, name: 'Default Site' });
      assert.deepEqual(await second.get('SELECT id, name, site_id FROM sensor_groups'), { id: 1, name: 'Default Group', site_id: 1 });
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuse a database written by a newer build', async () => {
    const dir = tempDir();
    try {
      const db = SqliteDatabase.open(join(dir, 'vigil.db'));
      await migrate(db, sqliteMigrations);
      await db.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [9999, 'future', 'x']);
      await assert.rejects(migrate(db, sqliteMigrations), SchemaTooNewError);
      await db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('roll back a failing migration whole', async () => {
    const dir = tempDir();
    try {
      const db = SqliteDatabase.open(join(dir, 'vigil.db'));
      const broken = [...sqliteMigrations, { version: 1000, name: 'broken', sql: 'CREATE TABLE half (x INTEGER);\nSELECT * FROM missing_table;' }];
      await assert.rejects(migrate(db, broken));
      assert.equal(await db.get("SELECT name FROM sqlite_master WHERE name = 'half'"), undefined);
      const newest = await db.get<{ v: number }>('SELECT MAX(version) AS v FROM schema_migrations');
      assert.equal(newest?.v, sqliteMigrations.at(-1)!.version);
      await db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
