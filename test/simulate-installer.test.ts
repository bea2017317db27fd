/**
 * `vigil simulate --installer` against a real server over real HTTPS: the package downloaded from
 * the server is all the simulator is given, and its sensors enrol in the package's group while
 * verifying the server against the certificate in it (a package with another certificate fails).
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import { createContainer, type Container } from '../src/container.js';
import { loadOrCreateCertificate } from '../src/http/tls.js';
import { tarGzPackage } from '../src/modules/installers/installer-package.js';
import { readInstallerPackage } from '../src/sensor/installer-package.js';
import { vigilSimulate } from './support/simulate-cli.js';
import { as } from './support/app.js';
import { tempDir } from './support/temp.js';

describe('vigil simulate --installer over HTTPS', () => {
  let dir: string;
  let container: Container;
  let app: FastifyInstance;
  let certificate: string;
  let url: string;
  let adminToken: string;
  let groupId: number;

  before(async () => {
    dir = tempDir();
    container = await createContainer(loadConfig({ dataDir: join(dir, 'data'), logLevel: 'silent' }));
    const tls = await loadOrCreateCertificate(container.config.dataDir, '127.0.0.1');
    certificate = tls.cert;
    app = await buildApp(container, { tls });
    adminToken = (await container.services.users.bootstrapAdmin())!;
    await app.listen({ host: '127.0.0.1', port: 0 });
    url = `https://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    groupId = (await app.inject({ method: 'POST', url: '/api/group', headers: as(adminToken), payload: { name: 'Enrolled by package' } })).json().id;
  });
  after(async () => {
    await app.close();
    await container.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Downloads over HTTPS as an administrator would, trusting the server's certificate. */
  async function download(platform: string): Promise<Buffer> {
    const response = await new Promise<IncomingMessage>((resolve, reject) =>
      get(`${url}/api/v1/group/${groupId}/installer/${platform}`, { ca: certificate, headers: as(adminToken) }, resolve).on('error', reject));
    assert.equal(response.statusCode, 200);
    return buffer(response);
  }

  async function sensorsIn(group: number): Promise<{ computer_name: string }[]> {
    return (await app.inject({ url: `/api/v1/sensor?groupid=${group}`, headers: as(adminToken) })).json();
  }

  for (const platform of ['linux', 'osx']) {
    it(`enrols sensors in the package's group from a ${platform} package alone`, async () => {
      const file = join(dir, `${platform}.package`);
      writeFileSync(file, await download(platform));
      const before = (await sensorsIn(groupId)).length;

      const run = await vigilSimulate(['--installer', file, '--sensors', '2', '--processes', '5', '--seed', platform, '--json']);
      assert.equal(run.status, 0, run.stderr);
      const summary = JSON.parse(run.stdout) as { ok: boolean; sensors: number; events_sent: number; events_acknowledged: number };
      assert.equal(summary.ok, true);
      assert.equal(summary.sensors, 2);
      assert.equal(summary.events_acknowledged, summary.events_sent);
      assert.equal((await sensorsIn(groupId)).length, before + 2);
      assert.equal((await sensorsIn(1)).length, 0, 'none in the default group');
    });
  }

  it('verifies the server against the package\'s certificate, so a package with another one does not enrol', async () => {
    const { settings } = await readInstallerPackage(await download('linux'));
    const stranger = await loadOrCreateCertificate(join(dir, 'stranger'), '127.0.0.1');
    const forged = await tarGzPackage([
      { name: 'sensor-settings.json', content: JSON.stringify(settings) },
      { name: 'server-cert.pem', content: stranger.cert },
    ], new Date());
    const file = join(dir, 'forged.tar.gz');
    writeFileSync(file, forged);
    const before = (await sensorsIn(groupId)).length;

    const run = await vigilSimulate(['--installer', file, '--sensors', '1', '--processes', '5']);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /^vigil: .*(certificate|signature)/im, run.stderr);
    assert.equal((await sensorsIn(groupId)).length, before);
  });

  it('says what it needs when given neither a package nor a server and token, or a package and a token', async () => {
    const neither = await vigilSimulate(['--sensors', '1']);
    assert.equal(neither.status, 1);
    assert.match(neither.stderr, /--installer FILE, or --server URL and --token TOKEN/);
    const both = await vigilSimulate(['--installer', join(dir, 'linux.package'), '--token', adminToken]);
    assert.equal(both.status, 1);
    assert.match(both.stderr, /leave out --token and --group/);
    const damaged = join(dir, 'damaged.zip');
    writeFileSync(damaged, Buffer.from('PK\x03\x04 not really a zip'));
    const broken = await vigilSimulate(['--installer', damaged]);
    assert.equal(broken.status, 1);
    assert.match(broken.stderr, /^vigil: a damaged/m);
  });
});
