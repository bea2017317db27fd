/**
 * `vigil user passwd` as an operator runs it: the first admin (who has only a token) is given a
 * password from standard input and can then log in to the console; a password is never taken as
 * an argument, and an empty one or an unknown user stops with one line and exit status 1.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import { createContainer } from '../src/container.js';
import { tempDir } from './support/temp.js';

const CLI = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));

function vigil(args: string[], input: string) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', CLI, ...args], { input, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Logs in as `username` on a server over the data dir, as the console would. */
async function loginStatus(dataDir: string, username: string, password: string): Promise<number> {
  const container = await createContainer(loadConfig({ dataDir, logLevel: 'silent' }));
  const app = await buildApp(container);
  try {
    await container.services.users.bootstrapAdmin();
    return (await app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password } })).statusCode;
  } finally {
    await app.close();
    await container.close();
  }
}

describe('vigil user passwd', () => {
  let dataDir: string;
  before(() => {
    dataDir = tempDir('vigil-passwd-');
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('gives the first admin a password from standard input, which then logs in', async () => {
    assert.equal(await loginStatus(dataDir, 'admin', 'first admin pw'), 401, 'no password yet');
    const set = vigil(['user', 'passwd', 'admin', '--data-dir', dataDir], 'first admin pw\n');
    assert.equal(set.status, 0, set.stderr);
    assert.match(set.stdout, /^Password of admin set/);
    assert.doesNotMatch(set.stdout + set.stderr, /first admin pw/);
    assert.equal(await loginStatus(dataDir, 'admin', 'first admin pw'), 200);
    assert.equal(await loginStatus(dataDir, 'admin', 'first admin pw\n'), 401, 'the trailing newline is not part of it');
  });

  it('refuses a password given as an argument, an empty one and an unknown user', () => {
    const inArgv = vigil(['user', 'passwd', 'admin', 'hunter2', '--data-dir', dataDir], '');
    assert.equal(inArgv.status, 1);
    assert.match(inArgv.stderr, /too many arguments/);
    const refusals = [
      vigil(['user', 'passwd', 'admin', '--data-dir', dataDir], '\n'),
      vigil(['user', 'passwd', 'nobody', '--data-dir', dataDir], 'pw\n'),
    ];
    for (const refused of refusals) {
      assert.equal(refused.status, 1, refused.stdout);
      assert.equal(refused.stderr.trimEnd().split('\n').length, 1, refused.stderr);
    }
    assert.match(refusals[0]!.stderr, /standard input was empty/);
    assert.match(refusals[1]!.stderr, /No user named nobody/);
  });
});
