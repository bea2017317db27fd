/**
 * The `vigil` command on PostgreSQL, through the installed bin (compiled dist) and a real server:
 * `migrate`, `user add` and `token` work on the database with --database-url or VIGIL_DATABASE_URL,
 * a token they print verifies against the users store on PostgreSQL, `serve` runs the whole server
 * on it (a simulated fleet uploads and is searched), and a database that is down stops every
 * command with one line.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../src/config/load.js';
import { postgresMigrations } from '../src/db/migrations/postgres.js';
import { sqliteMigrations } from '../src/db/migrations/sqlite.js';
import { openShellUsers } from '../src/wiring/shell-users.js';
import { dropTestDatabase, freshTestDatabase } from './support/postgres.js';
import { tempDir } from './support/temp.js';
import { BIN, startServer } from './support/vigil-cli.js';
import { closedPort } from './support/closed-port.js';


function vigil(args: string[], options: { input?: string; env?: Record<string, string> } = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    input: options.input, encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...options.env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The same as vigil(), without blocking: for commands run side by side. */
function vigilAsync(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args]);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

function assertOneLine(stderr: string, pattern: RegExp): void {
  const lines = stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line, no stack trace:\n${stderr}`);
  assert.match(lines[0]!, pattern);
}

describe('vigil on PostgreSQL', () => {
  const dirs: string[] = [];
  const dir = (prefix: string): string => {
    const made = tempDir(prefix);
    dirs.push(made);
    return made;
  };
  let database: { name: string; url: string };
  before(async () => {
    database = await freshTestDatabase('empty', async () => undefined);
  });
  after(async () => {
    await dropTestDatabase(database.name);
    for (const made of dirs) rmSync(made, { recursive: true, force: true });
  });

  it('lists migrate and --database-url in the help', () => {
    assert.match(vigil(['--help']).stdout, /\bmigrate\b/);
    for (const command of [['serve'], ['token'], ['user', 'add'], ['migrate']]) {
      const help = vigil([...command, '--help']).stdout;
      assert.ok(help.includes('--database-url') && help.includes('--data-dir'), command.join(' '));
    }
  });

  it('vigil migrate applies the schema and says what it did; a second run has nothing to apply', () => {
    const first = vigil(['migrate', '--database-url', database.url]);
    assert.equal(first.status, 0, first.stderr);
    const newest = postgresMigrations.at(-1)!.version;
    const shown = database.url.replace(/:[^:@/]+@/, '@');
    for (const step of postgresMigrations) assert.ok(first.stdout.includes(`Applied migration ${step.version}: ${step.name}\n`), first.stdout);
    assert.ok(first.stdout.endsWith(`${shown} is now at schema version ${newest} (it was at 0).\n`), first.stdout);
    assert.ok(!first.stdout.includes('vigil-test'), 'the password is not shown');
    const again = vigil(['migrate'], { env: { VIGIL_DATABASE_URL: database.url } });
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stdout, `${shown} is already at schema version ${newest}: nothing to apply.\n`);
  });

  it('vigil migrate run by several processes at once on a fresh database: one applies, the others find nothing to do', async () => {
    const fresh = await freshTestDatabase('empty', async () => undefined);
    try {
      const runs = await Promise.all(Array.from({ length: 4 }, () => vigilAsync(['migrate', '--database-url', fresh.url])));
      for (const run of runs) assert.equal(run.status, 0, run.stderr);
      assert.equal(runs.filter((run) => run.stdout.includes('Applied migration')).length, 1, runs.map((run) => run.stdout).join('\n'));
      assert.equal(runs.filter((run) => run.stdout.includes('nothing to apply')).length, runs.length - 1);
    } finally {
      await dropTestDatabase(fresh.name);
    }
  });

  it('vigil migrate on the embedded store migrates the data dir\'s file', () => {
    const dataDir = dir('vigil-migrate-');
    const result = vigil(['migrate', '--data-dir', dataDir]);
    assert.equal(result.status, 0, result.stderr);
    const newest = sqliteMigrations.at(-1)!.version;
    assert.ok(result.stdout.endsWith(`${join(dataDir, 'vigil.db')} is now at schema version ${newest} (it was at 0).\n`), result.stdout);
  });

  it('vigil user add and vigil token work on the database; the token verifies there, whichever data dir', async () => {
    const firstServer = dir('vigil-pg-a-');
    const keyFile = join(firstServer, 'secrets.key');
    const added = vigil(['user', 'add', 'alice', '--global-admin', '--password-stdin', '--database-url', database.url, '--data-dir', firstServer], {
      input: 'correct horse\n',
    });
    assert.equal(added.status, 0, added.stderr);
    const token = added.stdout.trim();
    assert.match(token, /^[0-9a-f]{40}$/);

    // Another server's data dir, given the same secret key file.
    const otherServer = dir('vigil-pg-b-');
    const printed = vigil(['token', 'alice', '--data-dir', otherServer, '--secret-key-file', keyFile], {
      env: { VIGIL_DATABASE_URL: database.url },
    });
    assert.equal(printed.status, 0, printed.stderr);
    assert.equal(printed.stdout.trim(), token);

    const shell = await openShellUsers(loadConfig({ databaseUrl: database.url, dataDir: dir('vigil-pg-c-'), secretKeyFile: keyFile }));
    try {
      const principal = await shell.users.authenticate(token);
      assert.equal(principal.username, 'alice');
      assert.equal(principal.globalAdmin, true);
    } finally {
      await shell.close();
    }

    const duplicate = vigil(['user', 'add', 'alice', '--database-url', database.url, '--secret-key-file', keyFile]);
    assert.equal(duplicate.status, 1);
    assertOneLine(duplicate.stderr, /^vigil: .*already exists/);
    const noKey = vigil(['token', 'alice', '--database-url', database.url, '--data-dir', dir('vigil-pg-d-')]);
    assert.equal(noKey.status, 1);
    assertOneLine(noKey.stderr, /^vigil: The secret key file .* is missing, .*every Vigil server and command on one database needs the same key/);
    const otherKey = join(dir('vigil-pg-e-'), 'other.key');
    writeFileSync(otherKey, randomBytes(32).toString('hex'));
    const wrongKey = vigil(['token', 'alice', '--database-url', database.url, '--secret-key-file', otherKey]);
    assert.equal(wrongKey.status, 1);
    assertOneLine(wrongKey.stderr, /^vigil: The secret key file .* is not the key this database's secrets were sealed with/);
  });

  it('vigil serve --database-url runs the whole server: a simulated fleet uploads, and search, binaries and alerts answer', async () => {
    const own = await freshTestDatabase('empty', async () => undefined);
    const dataDir = dir('vigil-pg-serve-');
    const server = await startServer(['--http', '--database-url', own.url, '--data-dir', dataDir]);
    try {
      const token = readFileSync(join(dataDir, 'admin-token.txt'), 'utf8').trim();
      const simulated = await vigilAsync(['simulate', '--server', server.url, '--token', token, '--sensors', '2', '--processes', '20', '--seed', 'pg']);
      assert.equal(simulated.status, 0, simulated.stderr);
      const accepted = Number(/(\d+) accepted/.exec(simulated.stdout)?.[1]);
      assert.ok(accepted > 0, simulated.stdout);
      const get = async (path: string) => {
        const response = await fetch(`${server.url}${path}`, { headers: { 'X-Auth-Token': token } });
        return { status: response.status, body: await response.json() as Record<string, unknown> };
      };
      const processes = await get('/api/v1/process?q=hostname:*&rows=5');
      assert.equal(processes.status, 200);
      assert.equal(processes.body.total_results, 40, 'every simulated process is found');
      const binaries = await get('/api/v1/binary?rows=1');
      assert.equal(binaries.status, 200);
      const [binary] = binaries.body.results as { md5: string }[];
      assert.ok(binary, 'the uploaded binaries are searchable');
      assert.equal((await get(`/api/v1/binary/${binary.md5}/summary`)).status, 200);
      // The content was uploaded into the database, not the data dir.
      const download = await fetch(`${server.url}/api/v1/binary/${binary.md5}`, { headers: { 'X-Auth-Token': token } });
      assert.equal(download.status, 200);
      assert.ok((await download.arrayBuffer()).byteLength > 0);
      assert.equal(existsSync(join(dataDir, 'binaries', binary.md5.toLowerCase().slice(0, 2))), false);
      const alerts = await get('/api/v2/alert?rows=1');
      assert.equal(alerts.status, 200);
      assert.equal(alerts.body.total_results, 0);
      assert.equal((await fetch(`${server.url}/api/v1/process`, { headers: { 'X-Auth-Token': '0'.repeat(40) } })).status, 401);
    } finally {
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0, server.output());
      await dropTestDatabase(own.name);
    }
  });

  it('a database that is down stops serve, migrate, user and token with one line and status 1', async () => {
    const down = `postgres://vigil:hunter2@127.0.0.1:${await closedPort()}/vigil`;
    const dataDir = dir('vigil-pg-down-');
    const commands = [
      ['serve', '--port', '0'],
      ['migrate'],
      ['user', 'add', 'carol'],
      ['token', 'carol'],
    ];
    for (const command of commands) {
      const result = vigil([...command, '--database-url', down, '--data-dir', dataDir]);
      assert.equal(result.status, 1, `${command.join(' ')}: ${result.stderr}`);
      assertOneLine(result.stderr, /^vigil: The PostgreSQL database at postgres:\/\/vigil@127\.0\.0\.1:\d+\/vigil cannot be reached \(connect ECONNREFUSED/);
      assert.doesNotMatch(result.stderr, /hunter2/);
    }
  });
});
