/**
 * A real Vigil app on a fresh data dir (real SQLite file, real migrations), driven through
 * app.inject. The bootstrap admin exists; `as(token)` builds the auth header.
 *
 * With VIGIL_TEST_STORE=postgres the app runs on a fresh PostgreSQL database instead (the server
 * of test/support/postgres.ts), as `vigil serve --database-url` does, and the database is dropped
 * when the app closes: route tests then prove the same behaviour on both stores.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import type { SqlDatabase } from '../../src/db/database.js';
import { PostgresDatabase } from '../../src/db/dialects/postgres.js';
import { SqliteDatabase } from '../../src/db/dialects/sqlite.js';
import { SQLITE_FILE } from '../../src/db/open.js';
import { createContainer, type Container } from '../../src/container.js';
import { dropTestDatabase } from './postgres.js';
import { freshMigratedDatabase } from './postgres-migrated.js';
import { tempDir } from './temp.js';

export interface TestApp {
  app: FastifyInstance;
  container: Container;
  config: Config;
  adminToken: string;
  close(): Promise<void>;
}

/** `appOptions`: a logger, for tests of what is logged. */
export async function startTestApp(overrides: Partial<Config> = {}, appOptions: AppOptions = {}): Promise<TestApp> {
  const dataDir = tempDir();
  const database = testStore() === 'postgres' && overrides.databaseUrl === undefined ? await freshMigratedDatabase() : undefined;
  const config = loadConfig({ dataDir, logLevel: 'silent', ...(database && { databaseUrl: database.url }), ...overrides });
  const container = await createContainer(config);
  const app = await buildApp(container, appOptions);
  const adminToken = (await container.services.users.bootstrapAdmin())!;
  return {
    app,
    container,
    config,
    adminToken,
    async close() {
      await app.close();
      await container.close();
      if (database) await dropTestDatabase(database.name);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The store the test apps run on: the embedded SQLite (default) or PostgreSQL (VIGIL_TEST_STORE=postgres). */
export function testStore(): 'sqlite' | 'postgres' {
  return process.env.VIGIL_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';
}

/** A connection of the test's own to the app's database, beside the server, for what a test reads or writes behind the API; close it after. */
export function openAppDatabase(test: TestApp): SqlDatabase {
  const url = test.config.databaseUrl;
  return url === undefined ? SqliteDatabase.open(join(test.config.dataDir, SQLITE_FILE)) : PostgresDatabase.open(url, { poolSize: 1 });
}

/**
 * The test app listening on a free loopback port, for clients that need a URL (the simulator, a
 * browser): plain HTTP, or HTTPS when `appOptions.tls` is given.
 */
export interface ListeningTestApp extends TestApp {
  url: string;
}

export async function startListeningTestApp(overrides: Partial<Config> = {}, appOptions: AppOptions = {}): Promise<ListeningTestApp> {
  const test = await startTestApp(overrides, appOptions);
  await test.app.listen({ port: 0, host: '127.0.0.1' });
  const scheme = appOptions.tls ? 'https' : 'http';
  return { ...test, url: `${scheme}://127.0.0.1:${(test.app.server.address() as AddressInfo).port}` };
}

export function as(token: string): { 'x-auth-token': string } {
  return { 'x-auth-token': token };
}

/** Creates a user through the API and returns their token (read back as a global admin would). */
export async function createUser(
  test: TestApp,
  user: { username: string; global_admin?: boolean; teams?: number[]; password?: string },
): Promise<string> {
  const created = await test.app.inject({ method: 'POST', url: '/api/user', headers: as(test.adminToken), payload: user });
  if (created.statusCode !== 200) throw new Error(`creating ${user.username}: ${created.statusCode} ${created.body}`);
  const read = await test.app.inject({ url: `/api/user/${user.username}`, headers: as(test.adminToken) });
  return (read.json() as { auth_token: string }).auth_token;
}
