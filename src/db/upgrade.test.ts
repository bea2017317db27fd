/**
 * Data written by an earlier schema stays readable after an upgrade: a database made at schema
 * version 9 (test/fixtures/README.md) is opened by this build, which migrates it, and its
 * processes and events are read through the API as they were stored, and the secrets it kept in
 * plain text (install codes, feed credentials) are sealed, leaving no plain copy in the files.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { as } from '../../test/support/app.js';
import { tempDir } from '../../test/support/temp.js';
import { buildApp } from '../app.js';
import { loadConfig } from '../config/load.js';
import { createContainer, type Container } from '../container.js';
import { processId } from '../domain/process-id.js';
import { SQLITE_FILE } from './open.js';
import { SecretBox } from './secrets/secret-box.js';
import { DEFAULT_SECRET_KEY_FILE } from './secrets/secret-key.js';

const FIXTURE = join(import.meta.dirname, '../../test/fixtures/schema-v9.db.gz');
const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const PARENT = processId({ sensorId: 1, pid: 700, startMs: T0 });
const CHILD = processId({ sensorId: 1, pid: 701, startMs: T0 + 5 });

describe('upgrade from schema 9', () => {
  let dataDir: string;
  let container: Container;
  let app: FastifyInstance;
  let token: string;
  let legacyInstallCode: string;
  const LEGACY_FEED_PASSWORD = 'legacy-feed-password-41f9';
  const get = async (url: string) => {
    const response = await app.inject({ url, headers: as(token) });
    assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
    return response.json();
  };

  before(async () => {
    dataDir = tempDir();
    writeFileSync(join(dataDir, SQLITE_FILE), gunzipSync(readFileSync(FIXTURE)));
    const legacy = new Database(join(dataDir, SQLITE_FILE));
    legacyInstallCode = (legacy.prepare('SELECT code FROM sensor_install_codes WHERE group_id = 1').get() as { code: string }).code;
    legacy.prepare(
      `INSERT INTO feeds (name, display_name, feed_url, summary, tech_data, provider_url, icon, icon_small, category_tokens,
         enabled, username, password, manually_added, created_ms)
       VALUES ('oldintel', 'Old intel', 'http://127.0.0.1:9/feed.json', '', '', '', '', '', '[]', 0, 'reader', ?, 1, 1)`,
    ).run(LEGACY_FEED_PASSWORD);
    legacy.close();
    container = await createContainer(loadConfig({ dataDir, logLevel: 'silent' }));
    app = await buildApp(container);
    // The fixture's token key was not kept: the shell gives the admin a new token, as `vigil token` does.
    token = await container.services.users.tokenFromShell('admin');
  });
  after(async () => {
    await app.close();
    await container.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finds the old processes by search, with their fields', async () => {
    const reply = await get('/api/v1/process?q=hostname:legacy-host&rows=10&sort=start asc');
    assert.equal(reply.total_results, 4, 'two processes of two segments each');
    const grouped = await get('/api/v1/process?q=process_name:cmd.exe&cb.group=id&rows=10&sort=start asc');
    assert.deepEqual(grouped.results.map((r: { id: string }) => r.id), [PARENT, CHILD]);
    const child = grouped.results[1];
    assert.equal(child.parent_name, 'cmd.exe');
    assert.equal(child.cmdline, 'cmd.exe /c whoami');
    assert.equal(child.username, 'CORP\\alice');
    assert.equal((await get('/api/v1/process?q=domain:example.com&rows=0')).total_results, 2);
    // Command-line words posted per segment before migration 11 are found per process after it.
    const words = await get('/api/v1/process?q=cmdline:whoami&cb.group=id&rows=10&sort=start asc');
    assert.deepEqual(words.results.map((r: { id: string }) => r.id), [PARENT, CHILD]);
    assert.equal((await get('/api/v1/process?q=cmdline:whoami&rows=0')).total_results, 4, 'every segment of both processes');
  });

  it('reads an old process\'s detail and segments', async () => {
    const detail = await get(`/api/v1/process/${PARENT}/0`);
    assert.equal(detail.process.process_name, 'cmd.exe');
    assert.equal(detail.process.hostname, 'legacy-host');
    assert.deepEqual(detail.children.map((c: { process_pid: number }) => c.process_pid), [701]);
    assert.equal((await get(`/api/v1/process/${PARENT}/segment`)).process.segments.length, 2);
  });

  it('reads its events in every event format', async () => {
    const v1 = (await get(`/api/v1/process/${PARENT}/0/event`)).process;
    assert.deepEqual(v1.filemod_complete, ['1|2026-11-20 10:00:00.001000|c:\\temp\\out.txt||0|false']);
    for (const version of [2, 3, 4]) {
      const events = (await get(`/api/v${version}/process/${PARENT}/0/event`)).process;
      assert.equal(events.netconn_complete.length, 1, `v${version}`);
      assert.equal(events.modload_complete.length, 1, `v${version}`);
      assert.equal(events.childproc_complete.length, 1, `v${version}`);
    }
    const v4 = (await get(`/api/v4/process/${PARENT}/0/event`)).process;
    assert.equal(v4.netconn_complete[0].domain, 'example.com');
    assert.equal(v4.netconn_complete[0].remote_ip, '93.184.216.34');
  });

  it('seals the install code and feed password it kept in plain text, and still uses them', async () => {
    const files = [SQLITE_FILE, `${SQLITE_FILE}-wal`].map((name) => join(dataDir, name)).filter((file) => existsSync(file));
    const bytes = Buffer.concat(files.map((file) => readFileSync(file)));
    for (const secret of [legacyInstallCode, LEGACY_FEED_PASSWORD]) assert.equal(bytes.indexOf(secret), -1, `${secret} left in plain text`);
    assert.equal((await get('/api/v1/group/1/install_code')).install_code, legacyInstallCode);
    const register = await app.inject({
      method: 'POST', url: '/sensor/v1/register',
      payload: { install_code: legacyInstallCode, os_type: 'linux', computer_name: 'new-host', build_version_string: '006.001.002.71109', boot_id: '1' },
    });
    assert.equal(register.statusCode, 200, register.body);
    const key = Buffer.from(readFileSync(join(dataDir, DEFAULT_SECRET_KEY_FILE), 'utf8').trim(), 'hex');
    const reader = new Database(join(dataDir, SQLITE_FILE), { readonly: true });
    const row = reader.prepare("SELECT password FROM feeds WHERE name = 'oldintel'").get() as { password: string };
    reader.close();
    assert.equal(new SecretBox(key).open(row.password, 'feed-password'), LEGACY_FEED_PASSWORD);
  });

  it('gives the old data one hot partition holding all of it', async () => {
    const partitions = await get('/api/v1/storage/events/partition');
    assert.deepEqual(Object.keys(partitions), ['writer']);
    assert.equal(partitions.writer.info.numDocs, 4);
    assert.ok(partitions.writer.info.sizeInBytes > 0);
  });
});
