/**
 * Opens the configured store and brings its schema up to date: the PostgreSQL database that
 * `databaseUrl` names, or else the embedded SQLite file in the data dir (the default).
 *
 * On PostgreSQL several Vigil servers may start together on one database: migrations run under a
 * session advisory lock, so one server applies what is pending while the others wait and then
 * find nothing left. A database that cannot be reached, or refuses the connection, stops the
 * start with DatabaseOpenError, one line for the operator, instead of a driver's stack trace.
 */
import { join } from 'node:path';
import { ConfigError } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { SqlDatabase } from './database.js';
import { PostgresDatabase, type PostgresOpenOptions } from './dialects/postgres.js';
import { LockWaiters } from './dialects/sqlite-lock-waiters.js';
import { SqliteDatabase } from './dialects/sqlite.js';
import { DatabaseUnavailable } from './errors.js';
import { migrate, type MigrationReport } from './migrate.js';
import { postgresMigrations } from './migrations/postgres.js';
import { sqliteMigrations } from './migrations/sqlite.js';
import type { Migration } from './migrations/types.js';
import { makePrivateDir, touchPrivateFile } from './private-files.js';

export const SQLITE_FILE = 'vigil.db';

/** The same number in every Vigil build: the advisory lock all servers on a database take to migrate it. */
export const MIGRATION_LOCK_KEY = 0x7669_6769_6c00;

/** The database could not be opened at start (unreachable, refused, no such database): the message is for the operator. */
export class DatabaseOpenError extends ConfigError {}

export interface OpenedDatabase {
  db: SqlDatabase;
  /** What the start's migration found and applied. */
  migration: MigrationReport;
  /** The database as the operator knows it: a file path, or the URL without its password. */
  where: string;
}

export async function openConfiguredDatabase(config: Config): Promise<OpenedDatabase> {
  if (config.databaseUrl !== undefined) return openPostgres(config.databaseUrl, { poolSize: config.databasePoolSize, statementTimeoutMs: config.databaseStatementTimeoutMs });
  const { db, migration } = await openSqlite(config);
  return { db, migration, where: join(config.dataDir, SQLITE_FILE) };
}

/** The embedded SQLite file in the data dir, migrated. */
export async function openDatabase(config: Config): Promise<SqliteDatabase> {
  return (await openSqlite(config)).db;
}

async function openSqlite(config: Config): Promise<{ db: SqliteDatabase; migration: MigrationReport }> {
  makePrivateDir(config.dataDir);
  const file = join(config.dataDir, SQLITE_FILE);
  touchPrivateFile(file);
  // The request thread's connection: waiting for the writer's lock must not hold the event loop.
  // Its count of waiting connections goes to the worker threads, so the event writer lets them go first.
  const db = SqliteDatabase.open(file, {
    yieldWhenBusy: true, lockWaitMs: config.databaseLockWaitMs, lockWaiters: new LockWaiters(), pageCacheMb: config.sqlitePageCacheMb,
  });
  try {
    return { db, migration: await migrate(db, sqliteMigrations) };
  } catch (error) {
    await db.close();
    throw error;
  }
}

async function openPostgres(url: string, options: PostgresOpenOptions): Promise<OpenedDatabase> {
  const where = withoutPassword(url);
  // Migrations run on connections of their own with no statement limit: building an index on a
  // large table, or waiting for another server's migrations, may rightly take longer.
  const migrator = PostgresDatabase.open(url, { poolSize: 2 });
  let migration: MigrationReport;
  try {
    migration = await migrateUnderLock(migrator, postgresMigrations);
  } catch (error) {
    throw openFailure(error, where);
  } finally {
    await migrator.close();
  }
  return { db: PostgresDatabase.open(url, options), migration, where };
}

/** Applies what is pending, one server at a time: the others wait for the lock, then find nothing left to apply. */
export function migrateUnderLock(db: PostgresDatabase, migrations: readonly Migration[]): Promise<MigrationReport> {
  return db.withSessionLock(MIGRATION_LOCK_KEY, () => migrate(db, migrations));
}

/** Class 28: invalid authorization; 3D000: no such database. Retrying will not help: the URL or the server's setup must change. */
function isRefusal(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('28') || code === '3D000');
}

function openFailure(error: unknown, where: string): unknown {
  if (error instanceof DatabaseUnavailable) {
    return new DatabaseOpenError(`The PostgreSQL database at ${where} cannot be reached (${causeText(error.cause)}). Check that it is running and that --database-url (VIGIL_DATABASE_URL) names it.`);
  }
  if (isRefusal(error)) return new DatabaseOpenError(`The PostgreSQL server refused ${where}: ${error.message}.`);
  return error;
}

/** A driver's reason in a few words; a connection refused on every address has no message of its own, only its parts. */
function causeText(cause: unknown): string {
  if (cause instanceof AggregateError && cause.errors.length > 0) return causeText(cause.errors[0]);
  if (cause instanceof Error && cause.message) return cause.message;
  return String((cause as { code?: unknown } | null)?.code ?? cause);
}

/** The URL as it can be shown in a message or a log: the password left out. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    parsed.searchParams.delete('password');
    return parsed.toString();
  } catch {
    return 'the configured URL';
  }
}
