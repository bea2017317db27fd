/**
 * `vigil serve` on a real data dir (HTTPS, SQLite, event chunk files): what it leaves on disk is
 * private to its user and holds no secret in plain text, and the first admin token reaches a person
 * at a terminal but never a service log.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { as, type TestApp } from '../test/support/app.js';
import { cbfeed, writeFeedFile } from '../test/support/feeds.js';
import { binaryMetadata, processEvents, registerSensor, uploadBinary, uploadEvents } from '../test/support/sensors.js';
import { tempDir } from '../test/support/temp.js';
import { ADMIN_TOKEN_FILE } from './startup/first-start.js';
import { loadConfig } from './config/load.js';
import { SQLITE_FILE } from './db/open.js';
import { BUILT_CONSOLE_DIR, consoleBuilt } from './http/console-static.js';
import { serve, type RunningServer } from './main.js';
import { CapturedOutput } from '../test/support/captured-output.js';


/** Every directory and file under `dir`, with its permission bits. */
function modesUnder(dir: string): Map<string, number> {
  const modes = new Map<string, number>();
  const visit = (path: string) => {
    const stats = statSync(path);
    modes.set(path.slice(dir.length) || '/', stats.mode & 0o777);
    if (stats.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return modes;
}

/** The bytes of the database file and of its WAL, as a backup of the data dir would copy them. */
function databaseBytes(dataDir: string): Buffer {
  const files = [SQLITE_FILE, `${SQLITE_FILE}-wal`].map((name) => join(dataDir, name)).filter((file) => existsSync(file));
  return Buffer.concat(files.map((file) => readFileSync(file)));
}

function asTestApp(server: RunningServer, adminToken: string): TestApp {
  return { app: server.app, container: server.container, config: server.container.config, adminToken, close: () => server.shutdown() };
}

describe('vigil serve', () => {
  const root = tempDir();
  after(() => rmSync(root, { recursive: true, force: true }));
  const configFor = (dataDir: string) => loadConfig({ dataDir, port: 0, logLevel: 'silent' });

  it('creates every directory 0700 and file 0600, and keeps install codes and feed credentials out of the database in plain text', async () => {
    const dataDir = join(root, 'new');
    const out = new CapturedOutput(false);
    const server = await serve(configFor(dataDir), out);
    const secrets = { password: 'feed-password-8d1e', ssl_client_key: '-----BEGIN PRIVATE KEY-----\nclient-key-5c2a' };
    let installCode: string;
    try {
      const test = asTestApp(server, readFileSync(join(dataDir, ADMIN_TOKEN_FILE), 'utf8').trim());
      installCode = (await test.app.inject({ url: '/api/v1/group/1/install_code', headers: as(test.adminToken) })).json().install_code;
      const sensor = await registerSensor(test);
      assert.equal((await uploadEvents(test, sensor, 1, processEvents(100))).statusCode, 200);
      const content = Buffer.from('MZ binary content');
      const upload = await uploadBinary(test, sensor, binaryMetadata(content, { observed_filename: 'C:\\x.exe' }), content);
      assert.ok(upload.statusCode < 300, upload.body);
      const feedUrl = writeFeedFile(root, 'feed.json', cbfeed('intel', []));
      const feed = await test.app.inject({ method: 'POST', url: '/api/v1/feed', headers: as(test.adminToken), payload: { feed_url: feedUrl, ...secrets } });
      assert.equal(feed.statusCode, 200, feed.body);
      await server.container.services.ingest.flush();
      for (const name of [`${SQLITE_FILE}-wal`, `${SQLITE_FILE}-shm`]) assert.equal((statSync(join(dataDir, name)).mode & 0o777).toString(8), '600', name);

      const bytes = databaseBytes(dataDir);
      for (const secret of [installCode, secrets.password, 'client-key-5c2a']) assert.equal(bytes.indexOf(secret), -1, `${secret} is in the database files`);
      assert.equal(bytes.indexOf(test.adminToken), -1);
    } finally {
      await server.shutdown();
    }
    const modes = modesUnder(dataDir);
    for (const expected of ['/vigil.db', '/secrets.key', '/token.key', '/tls/key.pem', '/tls/cert.pem', `/${ADMIN_TOKEN_FILE}`]) {
      assert.ok(modes.has(expected), `${expected} in ${[...modes.keys()].join(' ')}`);
    }
    assert.ok([...modes.keys()].some((path) => /^\/events\/partition-\d+\.chunks$/.test(path)), 'event chunk files');
    assert.ok([...modes.keys()].some((path) => path.startsWith('/binaries/')), 'binary content');
    for (const [path, mode] of modes) {
      const isDir = statSync(join(dataDir, path)).isDirectory();
      assert.equal(mode.toString(8), isDir ? '700' : '600', path);
    }
    assert.equal(databaseBytes(dataDir).indexOf(installCode), -1, 'nor after the WAL is folded back');
  });

  it('takes back a data dir and files that others could read, and says which', async () => {
    const dataDir = join(root, 'new');
    for (const [path, mode] of [['', 0o755], ['vigil.db', 0o644], ['tls', 0o755], ['tls/key.pem', 0o644], ['secrets.key', 0o640]] as const) {
      chmodSync(join(dataDir, path), mode);
    }
    const server = await serve(configFor(dataDir), new CapturedOutput(false));
    try {
      const loosened = server.container.loosenedPaths.map(({ path, mode }): [string, string] => [path.slice(dataDir.length), mode.toString(8)]);
      assert.deepEqual(new Map(loosened), new Map([['', '755'], ['/vigil.db', '644'], ['/tls', '755'], ['/tls/key.pem', '644'], ['/secrets.key', '640']]));
    } finally {
      await server.shutdown();
    }
    for (const [path, mode] of modesUnder(dataDir)) assert.ok((mode & 0o077) === 0, `${path} is ${mode.toString(8)}`);
  });

  it('shows the first admin token on a terminal, with the next steps, and writes no token file', async () => {
    const dataDir = join(root, 'terminal');
    const out = new CapturedOutput(true);
    const server = await serve(configFor(dataDir), out);
    try {
      const token = /^ {4}([0-9a-f]{40})$/m.exec(out.text)?.[1];
      assert.ok(token, out.text);
      assert.equal((await server.app.inject({ url: '/api/info', headers: as(token) })).statusCode, 200);
      const port = new URL(server.url).port;
      assert.ok(out.text.includes(`vigil simulate --server https://127.0.0.1:${port} --token "${token}" --sensors 5`), out.text);
      const consoleStep = consoleBuilt(BUILT_CONSOLE_DIR) ? `Open the analyst console at https://127.0.0.1:${port}/` : 'The analyst console is not built';
      assert.ok(out.text.includes(consoleStep), out.text);
      assert.ok(!existsSync(join(dataDir, ADMIN_TOKEN_FILE)));
    } finally {
      await server.shutdown();
    }
    const again = new CapturedOutput(true);
    await (await serve(configFor(dataDir), again)).shutdown();
    assert.equal(again.text, '', 'only on the first start');
  });

  it('writes the first admin token to a private file when stdout is not a terminal', async () => {
    const dataDir = join(root, 'service');
    const out = new CapturedOutput(false);
    const server = await serve(configFor(dataDir), out);
    try {
      assert.equal(out.text, '', 'nothing for a service log to keep');
      const file = join(dataDir, ADMIN_TOKEN_FILE);
      assert.equal((statSync(file).mode & 0o777).toString(8), '600');
      const token = readFileSync(file, 'utf8').trim();
      assert.equal((await server.app.inject({ url: '/api/info', headers: as(token) })).statusCode, 200);
    } finally {
      await server.shutdown();
    }
  });
});
