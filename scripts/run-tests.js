// Runs every test file with Node's own test runner. Node 20 cannot glob `--test` arguments and
// does not discover `.ts` files, so the list is gathered here.
//
// The PostgreSQL tests need a server: unless VIGIL_TEST_PG_URL names one, one embedded server
// (test/support/postgres-server.ts) is started for the whole run and stopped after it.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
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

/**
 * Suites that spend most of their time waiting on other processes (a browser, PostgreSQL, several
 * `vigil serve`): a whole run gives them a lane of their own beside the rest, so the two cores of a
 * CI machine are both busy and the run takes the time of its longer lane, not of both.
 */
const SIDE_LANE_TESTS = /\.browser\.test\.ts$|(^|\/)test\/[\w-]*\.postgres\.test\.ts$|(^|\/)test\/(migrate-store|cli-postgres)\.test\.ts$/;

/** Runs the files with Node's test runner; resolves to its exit status and, when kept, its output. */
function runTests(selected, env, { keepOutput = false } = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...selected], {
    stdio: keepOutput ? ['ignore', 'pipe', 'pipe'] : 'inherit', env,
  });
  const output = [];
  child.stdout?.on('data', (chunk) => output.push(chunk));
  child.stderr?.on('data', (chunk) => output.push(chunk));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ status: code ?? 1, output: Buffer.concat(output) })));
}

/** Runs each step in turn; resolves to the first non-zero status (or 0) and all their output. */
async function runLane(steps, env) {
  let status = 0;
  const output = [];
  for (const { title, files, laneEnv } of steps) {
    output.push(Buffer.from(`\n${title}\n\n`));
    const result = await runTests(files, { ...env, ...laneEnv }, { keepOutput: true });
    status ||= result.status;
    output.push(result.output);
  }
  return { status, output: Buffer.concat(output) };
}

const files = ['src', 'test'].flatMap(testFiles).sort();
const filter = process.argv.slice(2);
const selected = filter.length ? files.filter((f) => filter.some((part) => f.includes(part))) : files;
const postgres = process.env.VIGIL_TEST_PG_URL ? undefined : await startPostgres();
try {
  const env = { ...process.env, VIGIL_TEST_PG_URL: process.env.VIGIL_TEST_PG_URL ?? postgres.url };
  if (filter.length || process.env.VIGIL_TEST_STORE) {
    process.exitCode = (await runTests(selected, env)).status;
  } else {
    // The side lane's output is held back and printed whole after the main lane's, so the two
    // reports do not interleave.
    const side = runLane([
      { title: 'The browser, two-server and PostgreSQL command tests:', files: files.filter((f) => SIDE_LANE_TESTS.test(f)) },
      {
        title: 'The route and end-to-end tests again, with the app on PostgreSQL:',
        files: files.filter((f) => BOTH_STORE_TESTS.test(f)),
        laneEnv: { VIGIL_TEST_STORE: 'postgres' },
      },
    ], env);
    const main = await runTests(files.filter((f) => !SIDE_LANE_TESTS.test(f)), env);
    const { status, output } = await side;
    process.stdout.write(output);
    process.exitCode = main.status || status;
  }
} finally {
  await postgres?.stop();
}
