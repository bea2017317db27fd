/**
 * Opening PostgreSQL at start, on a real server: servers starting together on one fresh database
 * migrate it once between them, and a database that is down or refuses stops the start with a
 * line for the operator.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../config/load.js';
import { databaseUrl, dropTestDatabase, freshTestDatabase, testPostgresUrl } from '../../test/support/postgres.js';
import { PostgresDatabase } from './dialects/postgres.js';
import { postgresMigrations } from './migrations/postgres.js';
import type { Migration } from './migrations/types.js';
import { DatabaseOpenError, migrateUnderLock, openConfiguredDatabase, withoutPassword, type OpenedDatabase } from './open.js';
import { closedPort } from '../../test/support/closed-port.js';

const SERVERS = 6;

async function withFreshDatabase(work: (url: string) => Promise<void>): Promise<void> {
  const fresh = await freshTestDatabase('empty', async () => undefined);
  try {
    await work(fresh.url);
  } finally {
    await dropTestDatabase(fresh.name);
  }
}

describe('opening PostgreSQL', () => {
  it('opens the pool the settings ask for: its size and its statement limit', async () => {
    await withFreshDatabase(async (url) => {
      const opened = await openConfiguredDatabase(loadConfig({ databaseUrl: url, databasePoolSize: 12, databaseStatementTimeoutMs: 45_000 }));
      try {
        const { options } = (opened.db as PostgresDatabase).pool;
        assert.equal(options.max, 12);
        assert.equal((options as { query_timeout?: number }).query_timeout, 45_000);
      } finally {
        await opened.db.close();
      }
    });
  });

  it('migrates a fresh database once when several servers start on it together', async () => {
    await withFreshDatabase(async (url) => {
      const config = loadConfig({ databaseUrl: url });
      const opened: OpenedDatabase[] = await Promise.all(Array.from({ length: SERVERS }, () => openConfiguredDatabase(config)));
      try {
        const newest = postgresMigrations.at(-1)!.version;
        const appliers = opened.filter((o) => o.migration.applied.length > 0);
        assert.equal(appliers.length, 1, 'one server applied the migrations');
        assert.deepEqual(appliers[0]!.migration, { from: 0, to: newest, applied: postgresMigrations });
        for (const { migration } of opened) assert.equal(migration.to, newest);
        const versions = await opened[0]!.db.all<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
        assert.deepEqual(versions.map((row) => row.version), postgresMigrations.map((m) => m.version));
        assert.deepEqual(await opened[0]!.db.get('SELECT id, name FROM sites'), { id: 1, name: 'Default Site' });
      } finally {
        await Promise.all(opened.map((o) => o.db.close()));
      }
    });
  });

  it('applies each migration exactly once under the lock, however the starts interleave', async () => {
    // Each step records that it ran and then dawdles, so that without the lock the other starts
    // would read the same old version and apply the step again.
    const counted: Migration[] = [
      { version: 1, name: 'log', sql: 'CREATE TABLE ran (version INTEGER NOT NULL);\nINSERT INTO ran VALUES (1);\nSELECT pg_sleep(0.2);' },
      { version: 2, name: 'second', sql: 'INSERT INTO ran VALUES (2);\nSELECT pg_sleep(0.2);' },
      { version: 3, name: 'third', sql: 'INSERT INTO ran VALUES (3);' },
    ];
    await withFreshDatabase(async (url) => {
      const servers = Array.from({ length: SERVERS }, () => PostgresDatabase.open(url));
      try {
        const reports = await Promise.all(servers.map((db) => migrateUnderLock(db, counted)));
        const applied = reports.flatMap((report) => report.applied.map((step) => step.version)).sort();
        assert.deepEqual(applied, [1, 2, 3], 'each step applied by one server');
        const ran = await servers[0]!.all<{ version: number }>('SELECT version FROM ran ORDER BY version');
        assert.deepEqual(ran.map((row) => row.version), [1, 2, 3], 'each step ran once');
      } finally {
        await Promise.all(servers.map((db) => db.close()));
      }
    });
  });

  it('stops with one line naming the database, not its password, when nothing listens at its address', async () => {
    const url = `postgres://vigil:hunter2@127.0.0.1:${await closedPort()}/vigil`;
    await assert.rejects(openConfiguredDatabase(loadConfig({ databaseUrl: url })), (error: Error) => {
      assert.ok(error instanceof DatabaseOpenError, String(error));
      assert.match(error.message, /^The PostgreSQL database at postgres:\/\/vigil@127\.0\.0\.1:\d+\/vigil cannot be reached \(connect ECONNREFUSED/);
      assert.doesNotMatch(error.message, /hunter2|\n/);
      return true;
    });
  });

  it('shows a URL without its password, in the user part or the query', () => {
    assert.equal(withoutPassword('postgres://vigil:pw@db.example:5432/vigil?password=pw&sslmode=require'), 'postgres://vigil@db.example:5432/vigil?sslmode=require');
  });

  it('stops with one line when the server refuses: no such database, or the wrong password', async () => {
    const server = await testPostgresUrl();
    const missing = databaseUrl(server, 'no_such_database');
    await assert.rejects(openConfiguredDatabase(loadConfig({ databaseUrl: missing })), (error: Error) =>
      error instanceof DatabaseOpenError && /refused .*no_such_database.*does not exist/.test(error.message));
    const wrongPassword = new URL(server);
    wrongPassword.password = 'not-the-password';
    await assert.rejects(openConfiguredDatabase(loadConfig({ databaseUrl: wrongPassword.toString() })), (error: Error) =>
      error instanceof DatabaseOpenError && /password authentication failed/.test(error.message) && !error.message.includes('not-the-password'));
  });
});
