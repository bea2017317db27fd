/** Reading installer packages: zips from another writer (fflate) than the server's, and every way a package can be wrong. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { strToU8, zipSync } from 'fflate';
import { tarGzPackage } from '../modules/installers/installer-package.js';
import { InstallerPackageError, readInstallerPackage } from './installer-package.js';

const SETTINGS = {
  format: 'vigil-sensor-installer/1',
  platform: 'windows/msi',
  os_type: 'windows',
  server_url: 'https://edr.example.com:8443',
  group_id: 3,
  install_code: 'c0de',
  ca_certificate_file: 'server-cert.pem',
  tls_note: 'Trust server-cert.pem',
};
const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

const zip = (files: Record<string, string>, level: 0 | 6) =>
  Buffer.from(zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [name, strToU8(text)])), { level }));

describe('readInstallerPackage', () => {
  for (const level of [0, 6] as const) {
    it(`reads a zip written by another tool (${level ? 'deflated' : 'stored'} entries)`, async () => {
      const bytes = zip({ 'README.txt': 'hello', 'sensor-settings.json': JSON.stringify(SETTINGS), 'server-cert.pem': PEM }, level);
      assert.deepEqual(await readInstallerPackage(bytes), { settings: SETTINGS, ca: PEM });
    });
  }

  it('reads a package without a certificate as one that names none', async () => {
    const settings = { ...SETTINGS, ca_certificate_file: null };
    const bytes = await tarGzPackage([{ name: 'sensor-settings.json', content: JSON.stringify(settings) }], new Date());
    assert.deepEqual(await readInstallerPackage(bytes), { settings, ca: undefined });
  });

  const refused: [string, Buffer | Promise<Buffer>, RegExp][] = [
    ['no settings', zip({ 'README.txt': 'hello' }, 6), /holds no sensor-settings\.json/],
    ['settings that are not JSON', zip({ 'sensor-settings.json': '{' }, 6), /is not JSON/],
    ['settings without an install code', zip({ 'sensor-settings.json': JSON.stringify({ ...SETTINGS, install_code: undefined }) }, 6), /install_code/],
    ['a certificate named but missing', zip({ 'sensor-settings.json': JSON.stringify(SETTINGS) }, 6), /lacks/],
    ['a truncated zip', zip({ 'sensor-settings.json': JSON.stringify(SETTINGS), 'server-cert.pem': PEM }, 6).subarray(0, 60), /damaged/],
    ['a truncated tar.gz', tarGzPackage([{ name: 'sensor-settings.json', content: JSON.stringify(SETTINGS) }], new Date()).then((b) => b.subarray(0, 30)), /damaged/],
    ['neither a zip nor a gzip', Buffer.from('just some text'), /neither a zip nor a gzipped tar/],
    ['nothing at all', Buffer.alloc(0), /damaged|neither/],
  ];
  for (const [what, bytes, message] of refused) {
    it(`refuses ${what}`, async () => {
      await assert.rejects(readInstallerPackage(await bytes), (error: unknown) => error instanceof InstallerPackageError && message.test(error.message));
    });
  }
});
