/**
 * Fresh PostgreSQL databases for tests, on the server VIGIL_TEST_PG_URL names (one started by
 * scripts/run-tests.js, or any server the user points the suite at); a test file run on its own
 * starts an embedded server for itself.
 *
 * Each fresh database is a copy of a template that this process migrated once, so a test gets
 * an empty, migrated database in milliseconds; each is dropped when closed, and the template when
 * the process ends, so an existing server is left as it was found.
 */
import { randomBytes } from 'node:crypto';
import { after } from 'node:test';
import pg from 'pg';
import { startTestPostgres, type TestPostgresServer } from './postgres-server.js';

let serverUrl: Promise<string> | undefined;
let ownServer: TestPostgresServer | undefined;

/** The URL of the test server's maintenance database. */
export function testPostgresUrl(): Promise<string> {
  serverUrl ??= (async () => {
    const given = process.env.VIGIL_TEST_PG_URL;
    if (given) return given;
    ownServer = await startTestPostgres();
    return ownServer.url;
  })();
  return serverUrl;
}

export function databaseUrl(serverUrlText: string, database: string): string {
  const url = new URL(serverUrlText);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Runs one statement on the server's maintenance database (CREATE and DROP DATABASE cannot run in a pool's transaction). */
export async function onServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: await testPostgresUrl() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export function uniqueDatabaseName(prefix: string): string {
  return `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

const templates = new Map<string, Promise<string>>();
const leftToDrop = new Set<string>();

/**
 * A new database copied from the template that `prepare` filled (once per process per `key`).
 * Returns its URL; `dropTestDatabase` removes it.
 */
export async function freshTestDatabase(key: string, prepare: (url: string) => Promise<void>): Promise<{ name: string; url: string }> {
  let template = templates.get(key);
  if (!template) {
    template = (async () => {
      const name = uniqueDatabaseName('vigil_template');
      await onServer(`CREATE DATABASE ${name}`);
      leftToDrop.add(name);
      await prepare(databaseUrl(await testPostgresUrl(), name));
      return name;
    })();
    templates.set(key, template);
  }
  const name = uniqueDatabaseName('vigil_test');
  // FILE_COPY: for a small database, copying its files beats writing it through the WAL.
  await onServer(`CREATE DATABASE ${name} TEMPLATE ${await template} STRATEGY FILE_COPY`);
  return { name, url: databaseUrl(await testPostgresUrl(), name) };
}

export async function dropTestDatabase(name: string): Promise<void> {
  await onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

// The root test's hook: it runs when this file's tests are done, before the process would wait
// forever on the server it started (a child process keeps the event loop alive).
after(async () => {
  for (const name of leftToDrop) await dropTestDatabase(name).catch(() => undefined);
  leftToDrop.clear();
  await ownServer?.stop();
  ownServer = undefined;
});
