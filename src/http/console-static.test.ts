import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { tempDir } from '../../test/support/temp.js';
import { CONSOLE_CSP } from './console-static.js';

describe('the console served at /', () => {
  let test: TestApp;
  let dir: string;
  before(async () => {
    dir = tempDir();
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title>');
    writeFileSync(join(dir, 'assets', 'index-Ab12Cd34.js'), 'console.log(1)');
    test = await startTestApp({}, { consoleDir: dir });
  });
  after(async () => {
    await test.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the page without a login, never cached, under a CSP that allows no inline script', async () => {
    const page = await test.app.inject({ url: '/' });
    assert.equal(page.statusCode, 200);
    assert.match(page.headers['content-type'] as string, /^text\/html/);
    assert.equal(page.headers['cache-control'], 'no-cache');
    assert.equal(page.headers['content-security-policy'], CONSOLE_CSP);
    assert.match(CONSOLE_CSP, /script-src 'self'(;|$)/);
    assert.doesNotMatch(CONSOLE_CSP, /unsafe-inline|unsafe-eval/);
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
  });

  it('caches the hashed assets for good', async () => {
    const asset = await test.app.inject({ url: '/assets/index-Ab12Cd34.js' });
    assert.equal(asset.statusCode, 200);
    assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(asset.headers['content-security-policy'], CONSOLE_CSP);
  });

  it('leaves the API as it was: a login is still needed, an unknown path is still the 404 page', async () => {
    assert.equal((await test.app.inject({ url: '/api/v1/sensor' })).statusCode, 401);
    const missing = await test.app.inject({ url: '/assets/nope.js' });
    assert.equal(missing.statusCode, 404);
    assert.match(missing.body, /Not Found/);
  });
});
