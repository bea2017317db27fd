// Runs every test file with Node's own test runner. Node 20 cannot glob `--test` arguments and
// does not discover `.ts` files, so the list is gathered here.
//
// The PostgreSQL tests need a server: unless VIGIL_TEST_PG_URL names one, one embedded server
// (test/support/postgres-server.ts) is started for the whole run and stopped after it.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Starts the embedded PostgreSQL server; resolves to its URL and a function that stops it. */
async function startPostgres() {
  const server = spawn(process.execPath, ['--import', 'tsx', 'test/support/postgres-server.ts'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => server.once('exit', resolve));
  const firstLine = await new Promise((resolve, reject) => {
    createInterface({ input: server.stdout }).once('line', resolve);
    server.once('exit', (code) => reject(new Error(`the test PostgreSQL server did not start (exit status ${code})`)));
  });
  return {
    url: firstLine,
    async stop() {
      server.stdin.end();
      await exited;
    },
  };
}

/**
 * The tests a whole run repeats with the app on PostgreSQL (VIGIL_TEST_STORE, test/support/app.ts):
 * the HTTP route tests, and the end-to-end tests of test/ that drive the app through the API and
 * the sensor protocol (simulator, import, the interface specification's examples, writes under
 * ingest). Those that start `vigil serve` themselves (durability, CLI) choose their stores.
 */
const BOTH_STORE_TESTS = /\.routes[.\w-]*\.test\.ts$|(^|\/)test\/(simulate[\w-]*|import|interface-spec\.examples|writes-under-ingest)\.test\.ts$/;

function runTests(selected, env) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...selected], { stdio: 'inherit', env });
  return result.status ?? 1;
}

const files = ['src', 'test'].flatMap(testFiles).sort();
const filter = process.argv.slice(2);
const selected = filter.length ? files.filter((f) => filter.some((part) => f.includes(part))) : files;
const postgres = process.env.VIGIL_TEST_PG_URL ? undefined : await startPostgres();
try {
  const env = { ...process.env, VIGIL_TEST_PG_URL: process.env.VIGIL_TEST_PG_URL ?? postgres.url };
  let status = runTests(selected, env);
  if (!filter.length && !process.env.VIGIL_TEST_STORE) {
    console.log('\nThe route and end-to-end tests again, with the app on PostgreSQL:\n');
    status ||= runTests(files.filter((f) => BOTH_STORE_TESTS.test(f)), { ...env, VIGIL_TEST_STORE: 'postgres' });
  }
  process.exitCode = status;
} finally {
  await postgres?.stop();
}
