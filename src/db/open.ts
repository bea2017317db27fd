/**
 * Opens the configured store and brings its schema up to date. The embedded SQLite file is the
 * default; the PostgreSQL dialect joins here.
 */
import { join } from 'node:path';
import type { Config } from '../config/schema.js';
import { LockWaiters } from './dialects/sqlite-lock-waiters.js';
import { SqliteDatabase } from './dialects/sqlite.js';
import { migrate } from './migrate.js';
import { sqliteMigrations } from './migrations/sqlite.js';
import { makePrivateDir, touchPrivateFile } from './private-files.js';

export const SQLITE_FILE = 'vigil.db';

export async function openDatabase(config: Config): Promise<SqliteDatabase> {
  makePrivateDir(config.dataDir);
  const file = join(config.dataDir, SQLITE_FILE);
  touchPrivateFile(file);
  // The request thread's connection: waiting for the writer's lock must not hold the event loop.
  // Its count of waiting connections goes to the worker threads, so the event writer lets them go first.
  const db = SqliteDatabase.open(file, {
    yieldWhenBusy: true, lockWaitMs: config.databaseLockWaitMs, lockWaiters: new LockWaiters(),
  });
  try {
    await migrate(db, sqliteMigrations);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}
