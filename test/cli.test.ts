/**
 * The `vigil` command end to end, as a newcomer uses it: the installed bin (compiled dist), a real
 * HTTPS server on a temp data dir, tokens read from the shell, and a clean stop on SIGTERM. Under a
 * service manager (stdout a pipe) the log is JSON and the first admin token goes to a file; on a
 * terminal (a pseudo-terminal from script(1)) the log is pretty and the token is shown.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { tempDir } from './support/temp.js';
import { BIN, startServer } from './support/vigil-cli.js';


function vigil(args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], { input, encoding: 'utf8', timeout: 30_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

async function until(done: () => boolean, describe: () => string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out:\n${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function getJson(url: string, token: string, ca: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { headers: { 'X-Auth-Token': token }, ca }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text }));
    });
    req.on('error', reject);
    req.end();
  });
}

function postJson(url: string, token: string, ca: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method: 'POST', headers: { 'X-Auth-Token': token, 'content-type': 'application/json' }, ca }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('vigil command', () => {
  const dataDir = tempDir('vigil-cli-');
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('explains every command in --help', () => {
    const help = vigil(['--help']);
    assert.equal(help.status, 0);
    for (const command of ['serve', 'token', 'user', 'simulate']) assert.match(help.stdout, new RegExp(`\\b${command}\\b`));
    const serveHelp = vigil(['serve', '--help']).stdout;
    for (const flag of ['--data-dir', '--host', '--port', '--http']) assert.ok(serveHelp.includes(flag), flag);
    assert.match(vigil(['user', 'add', '--help']).stdout, /--global-admin[\s\S]*--password-stdin/);
  });

  it('serves HTTPS with its own certificate, writes the admin token once, and stops cleanly', async () => {
    const first = await startServer(['--data-dir', dataDir]);
    const tokenFile = join(dataDir, 'admin-token.txt');
    const adminToken = readFileSync(tokenFile, 'utf8').trim();
    assert.match(adminToken, /^[0-9a-f]{40}$/);
    assert.equal((statSync(tokenFile).mode & 0o777).toString(8), '600');
    assert.ok(!first.output().includes(adminToken), 'the token stays out of the service log');
    assert.ok(first.output().includes(`API token was written to ${tokenFile}`), first.output());
    const logLines = first.output().trim().split('\n').map((line) => JSON.parse(line) as { next?: string });
    const next = logLines.find((line) => line.next)?.next;
    assert.equal(next, `vigil simulate --server ${first.url} --token "$(cat '${tokenFile}')" --sensors 5 --processes 100`);
    rmSync(tokenFile);
    assert.match(first.url, /^https:\/\/127\.0\.0\.1:\d+$/);

    const fromShell = vigil(['token', 'admin', '--data-dir', dataDir]);
    assert.equal(fromShell.status, 0, fromShell.stderr);
    assert.equal(fromShell.stdout.trim(), adminToken);

    const ca = readFileSync(join(dataDir, 'tls', 'cert.pem'), 'utf8');
    const info = await getJson(`${first.url}/api/info`, adminToken, ca);
    assert.equal(info.status, 200);
    assert.equal((info.body as { version: string }).version.split('.')[0], '6');
    assert.equal((await getJson(`${first.url}/api/info`, '0'.repeat(40), ca)).status, 401);

    const added = vigil(['user', 'add', 'bob', '--password-stdin', '--data-dir', dataDir], 's3cret\n');
    assert.equal(added.status, 0, added.stderr);
    const bobToken = added.stdout.trim();
    assert.match(bobToken, /^[0-9a-f]{40}$/);
    assert.equal((await getJson(`${first.url}/api/info`, bobToken, ca)).status, 200);
    const bob = await getJson(`${first.url}/api/user/bob`, adminToken, ca);
    assert.equal((bob.body as { global_admin: boolean }).global_admin, false);

    const duplicate = vigil(['user', 'add', 'bob', '--data-dir', dataDir]);
    assert.equal(duplicate.status, 1);
    assert.match(duplicate.stderr, /already exists/);
    assert.equal(vigil(['user', 'add', 'root', '--global-admin', '--data-dir', dataDir]).status, 0);

    assert.equal(await postJson(`${first.url}/api/team`, adminToken, ca, { name: 'written before SIGTERM' }), 200);
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0, first.output());
    assert.match(first.output(), /shutting down/);

    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'vigil.db'), 0o644);
    const second = await startServer(['--data-dir', dataDir]);
    try {
      const warning = second.output().trim().split('\n').map((line) => JSON.parse(line) as { level: number; paths?: string[] })
        .find((line) => line.paths);
      assert.equal(warning?.level, 40, 'a warning');
      assert.deepEqual(warning?.paths, [`${dataDir} (was 0755)`, `${join(dataDir, 'vigil.db')} (was 0644)`]);
      assert.equal((statSync(dataDir).mode & 0o777).toString(8), '700');
      assert.equal((statSync(join(dataDir, 'vigil.db')).mode & 0o777).toString(8), '600');
      assert.ok(!existsSync(join(dataDir, 'admin-token.txt')), 'the token is written on first start only');
      const teams = await getJson(`${second.url}/api/teams`, adminToken, ca);
      assert.equal(teams.status, 200, 'the admin token survives a restart');
      assert.ok((teams.body as { name: string }[]).some((t) => t.name === 'written before SIGTERM'));
      const root = await getJson(`${second.url}/api/user/root`, adminToken, ca);
      assert.equal((root.body as { global_admin: boolean }).global_admin, true);
    } finally {
      second.child.kill('SIGINT');
      assert.equal(await second.exited, 0);
    }
  });

  it('on a terminal: pretty logs, the admin token shown, and next steps that work', async () => {
    const ttyDir = tempDir('vigil-cli-tty-');
    // script(1) gives the server a pseudo-terminal; Ctrl-C on it stops the server as a person would.
    // `exec` leaves no shell between script and the server: a shell such as dash, waiting on the
    // server, would take the same Ctrl-C and end itself with status 130 whatever the server did.
    const command = `exec "${process.execPath}" "${BIN}" serve --port 0 --data-dir "${ttyDir}"`;
    const child = spawn('script', ['-qfec', command, '/dev/null']);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      await until(() => output.includes('/api/v1/sensor'), () => output);
      const token = /^ {4}([0-9a-f]{40})\r?$/m.exec(output)?.[1];
      assert.ok(token, output);
      assert.match(output, /INFO.*Vigil is listening on https:\/\/127\.0\.0\.1:\d+/);
      assert.doesNotMatch(output, /\{"level":/, 'no JSON lines on a terminal');
      const simulateLine = /^ {4}(vigil simulate --server https:\/\/127\.0\.0\.1:\d+ --token "[0-9a-f]{40}" --sensors 5 --processes 100)\r?$/m.exec(output);
      assert.ok(simulateLine, output);
      // The next step as printed, with the installed command in place of `vigil`.
      const run = spawnSync('bash', ['-c', simulateLine[1]!.replace(/^vigil/, `"${process.execPath}" "${BIN}"`) + ' --json'], {
        encoding: 'utf8', timeout: 120_000,
      });
      assert.equal(run.status, 0, run.stderr);
      assert.equal((JSON.parse(run.stdout) as { sensors: number }).sensors, 5);
      assert.ok(!existsSync(join(ttyDir, 'admin-token.txt')));
      child.stdin.write('\x03');
      assert.equal(await exited, 0, output);
      assert.match(output, /shutting down/);
    } finally {
      child.kill();
      rmSync(ttyDir, { recursive: true, force: true });
    }
  });

  it('reports an unknown user and a bad flag with an exit status of 1', () => {
    const unknown = vigil(['token', 'nobody', '--data-dir', dataDir]);
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /No user named nobody/);
    const badPort = vigil(['serve', '--port', 'eighty', '--data-dir', dataDir]);
    assert.notEqual(badPort.status, 0);
    assert.match(badPort.stderr, /--port/);
  });

  it('serves plain HTTP when asked', async () => {
    const httpDir = tempDir('vigil-cli-http-');
    const server = await startServer(['--data-dir', httpDir, '--http']);
    try {
      assert.match(server.url, /^http:\/\//);
      const token = vigil(['token', 'admin', '--data-dir', httpDir]).stdout.trim();
      const response = await fetch(`${server.url}/api/info`, { headers: { 'X-Auth-Token': token } });
      assert.equal(response.status, 200);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      rmSync(httpDir, { recursive: true, force: true });
    }
  });
});
