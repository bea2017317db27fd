/** The secret key file against real data dirs: created on first start, and a start with a missing or wrong one stops plainly. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { as, startTestApp } from '../../../test/support/app.js';
import { installCode } from '../../../test/support/sensors.js';
import { tempDir } from '../../../test/support/temp.js';
import { buildApp } from '../../app.js';
import { loadConfig } from '../../config/load.js';
import { createContainer } from '../../container.js';
import { KeyFileError } from '../key-file.js';
import { DEFAULT_SECRET_KEY_FILE, SecretKeyError } from './secret-key.js';

describe('the secret key file', () => {
  const elsewhere = tempDir();
  after(() => rmSync(elsewhere, { recursive: true, force: true }));

  it('is created 0600 on first start, and a start without it or with another key stops with a message', async () => {
    const test = await startTestApp();
    const { dataDir } = test.config;
    const keyFile = join(dataDir, DEFAULT_SECRET_KEY_FILE);
    const code = await installCode(test);
    await test.app.close();
    await test.container.close();
    try {
      assert.equal((statSync(keyFile).mode & 0o777).toString(8), '600');
      const config = loadConfig({ dataDir, logLevel: 'silent' });
      const original = readFileSync(keyFile);

      renameSync(keyFile, join(elsewhere, 'moved.key'));
      await assert.rejects(createContainer(config), (error: Error) =>
        error instanceof SecretKeyError && error.message.includes(keyFile) && /is missing/.test(error.message));
      assert.ok(!existsSync(keyFile), 'no new key replaces the lost one');

      writeFileSync(keyFile, randomBytes(32).toString('hex') + '\n');
      await assert.rejects(createContainer(config), (error: Error) => error instanceof SecretKeyError && /is not the key/.test(error.message));
      writeFileSync(keyFile, 'not a key\n');
      await assert.rejects(createContainer(config), (error: Error) => error instanceof KeyFileError && /64 hex digits/.test(error.message));

      const moved = await createContainer(loadConfig({ dataDir, secretKeyFile: join(elsewhere, 'moved.key'), logLevel: 'silent' }));
      await moved.close();
      writeFileSync(keyFile, original);
      const restored = await createContainer(config);
      const app = await buildApp(restored);
      try {
        const token = await restored.services.users.tokenFromShell('admin');
        const reply = await app.inject({ url: '/api/v1/group/1/install_code', headers: as(token) });
        assert.equal(reply.json().install_code, code, 'the same code, opened with the right key');
      } finally {
        await app.close();
        await restored.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('can live outside the data dir, created there on first start', async () => {
    const secretKeyFile = join(elsewhere, 'keys', 'vigil.key');
    const test = await startTestApp({ secretKeyFile });
    try {
      assert.equal((statSync(secretKeyFile).mode & 0o777).toString(8), '600');
      assert.ok(!existsSync(join(test.config.dataDir, DEFAULT_SECRET_KEY_FILE)));
    } finally {
      await test.close();
    }
  });
});
