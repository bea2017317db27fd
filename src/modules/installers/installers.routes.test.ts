/**
 * Installer packages through the real app (reference core §7.1): each platform's archive, read
 * with independent readers (fflate for zips, tar-stream for tars), holds the group's install code,
 * the server's URL and the certificate it really serves.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { strFromU8, unzipSync } from 'fflate';
import { extract } from 'tar-stream';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';
import { loadOrCreateCertificate, tlsFiles } from '../../http/tls.js';
import { readInstallerPackage } from '../../sensor/installer-package.js';

async function entriesOf(body: Buffer, archive: 'zip' | 'tar.gz'): Promise<Record<string, string>> {
  if (archive === 'zip') return Object.fromEntries(Object.entries(unzipSync(body)).map(([name, bytes]) => [name, strFromU8(bytes)]));
  const entries: Record<string, string> = {};
  const tar = extract();
  Readable.from([gunzipSync(body)]).pipe(tar);
  for await (const entry of tar) entries[entry.header.name] = (await buffer(entry)).toString('utf8');
  return entries;
}

const PLATFORMS = [
  { path: 'windows/exe', archive: 'zip', contentType: 'application/zip', osType: 'windows' },
  { path: 'windows/msi', archive: 'zip', contentType: 'application/zip', osType: 'windows' },
  { path: 'osx', archive: 'zip', contentType: 'application/zip', osType: 'osx' },
  { path: 'linux', archive: 'tar.gz', contentType: 'application/gzip', osType: 'linux' },
] as const;

describe('sensor installer packages', () => {
  let test: TestApp;
  let groupId: number;
  let certificate: string;

  before(async () => {
    test = await startTestApp();
    certificate = (await loadOrCreateCertificate(test.config.dataDir, '127.0.0.1')).cert;
    groupId = (await test.app.inject({ method: 'POST', url: '/api/group', headers: as(test.adminToken), payload: { name: 'Laptops' } })).json().id;
  });
  after(() => test.close());

  it('says in /api/info that the Linux and macOS installers exist', async () => {
    const info = (await test.app.inject({ url: '/api/info', headers: as(test.adminToken) })).json();
    assert.equal(info.linuxInstallerExists, true);
    assert.equal(info.osxInstallerExists, true);
  });

  for (const platform of PLATFORMS) {
    it(`serves ${platform.path} as a ${platform.archive} attachment holding what a sensor needs to enrol in the group`, async () => {
      const reply = await test.app.inject({ url: `/api/v1/group/${groupId}/installer/${platform.path}`, headers: as(test.adminToken) });
      assert.equal(reply.statusCode, 200, reply.body);
      assert.equal(reply.headers['content-type'], platform.contentType);
      assert.match(String(reply.headers['content-disposition']), new RegExp(`^attachment; filename="vigil-sensor-group-${groupId}-[a-z-]+\\.${platform.archive.replace('.', '\\.')}"$`));

      const entries = await entriesOf(reply.rawPayload, platform.archive);
      assert.deepEqual(Object.keys(entries).sort(), ['README.txt', 'sensor-settings.json', 'server-cert.pem']);
      const { install_code } = (await test.app.inject({ url: `/api/v1/group/${groupId}/install_code`, headers: as(test.adminToken) })).json();
      const settings = JSON.parse(entries['sensor-settings.json']!);
      assert.deepEqual(settings, {
        format: 'vigil-sensor-installer/1',
        platform: platform.path,
        os_type: platform.osType,
        // No publicUrl: the scheme and Host the download came in on (app.inject's defaults).
        server_url: 'http://localhost:80',
        group_id: groupId,
        install_code,
        ca_certificate_file: 'server-cert.pem',
        tls_note: settings.tls_note,
      });
      assert.equal(entries['server-cert.pem'], certificate);
      assert.equal(entries['server-cert.pem'], readFileSync(tlsFiles(test.config.dataDir).certFile, 'utf8'));

      const read = await readInstallerPackage(reply.rawPayload);
      assert.deepEqual(read, { settings, ca: certificate });
    });
  }

  it('takes the server URL from the Host the download came in on, and refuses a Host that is no host', async () => {
    const url = `/api/v1/group/${groupId}/installer/linux`;
    const reply = await test.app.inject({ url, headers: { ...as(test.adminToken), host: 'edr.corp.example:9443' } });
    assert.equal((await readInstallerPackage(reply.rawPayload)).settings.server_url, 'http://edr.corp.example:9443');
    const bad = await test.app.inject({ url, headers: { ...as(test.adminToken), host: 'evil.example/path?' } });
    assert.equal(bad.statusCode, 400);
  });

  it('serves packages to administrators of the group only, 404 for an unknown group, 401 without a token', async () => {
    const team = (await test.app.inject({
      method: 'POST', url: '/api/team', headers: as(test.adminToken),
      payload: { name: 'Group admins', group_access: [{ group_id: groupId, access_category: 'Administrator' }, { group_id: 1, access_category: 'Viewer' }] },
    })).json();
    const groupAdmin = await createUser(test, { username: 'group-admin', teams: [team.id] });
    const outsider = await createUser(test, { username: 'outsider' });
    const get = (group: number, token?: string) =>
      test.app.inject({ url: `/api/v1/group/${group}/installer/osx`, headers: token === undefined ? {} : as(token) });

    assert.equal((await get(groupId, groupAdmin)).statusCode, 200);
    assert.equal((await get(1, groupAdmin)).statusCode, 403, 'a viewer may not read the install code');
    assert.equal((await get(groupId, outsider)).statusCode, 403);
    const unknown = await get(4242, test.adminToken);
    assert.equal(unknown.statusCode, 404);
    assert.match(unknown.body, />The requested URL was not found on the server\./);
    assert.equal((await get(groupId)).statusCode, 401);
  });
});

describe('sensor installer packages with a public URL, on plain HTTP', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp({ tls: false, publicUrl: 'https://edr.example.com:8443/' });
  });
  after(() => test.close());

  it('name the public URL and hold no certificate, saying why', async () => {
    const reply = await test.app.inject({ url: '/api/v1/group/1/installer/windows/exe', headers: as(test.adminToken) });
    assert.equal(reply.statusCode, 200, reply.body);
    const entries = await entriesOf(reply.rawPayload, 'zip');
    assert.deepEqual(Object.keys(entries).sort(), ['README.txt', 'sensor-settings.json']);
    const { settings, ca } = await readInstallerPackage(reply.rawPayload);
    assert.equal(settings.server_url, 'https://edr.example.com:8443');
    assert.equal(settings.ca_certificate_file, null);
    assert.match(settings.tls_note, /plain HTTP/);
    assert.equal(ca, undefined);
    const group = (await test.app.inject({ url: '/api/group/1', headers: as(test.adminToken) })).json()[0];
    assert.equal(group.sensorbackend_server, 'https://edr.example.com:8443', 'groups name the same URL');
  });
});
