/**
 * What a sensor installer package holds (docs/sensor-protocol.md, "Installer packages"): the
 * server builds it (installer-package.ts), a sensor or `vigil simulate --installer` reads it
 * (src/sensor/installer-package.ts). Windows and macOS packages are zips, Linux ones gzipped tars,
 * as Carbon Black's were; the files inside are the same for every platform.
 */
import type { Static } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';

export const SETTINGS_FILE = 'sensor-settings.json';
export const CERTIFICATE_FILE = 'server-cert.pem';
export const README_FILE = 'README.txt';
export const FORMAT = 'vigil-sensor-installer/1';

export const PLATFORMS = {
  'windows/exe': { osType: 'windows', archive: 'zip' },
  'windows/msi': { osType: 'windows', archive: 'zip' },
  osx: { osType: 'osx', archive: 'zip' },
  linux: { osType: 'linux', archive: 'tar.gz' },
} as const;
export type Platform = keyof typeof PLATFORMS;

export const SensorSettings = Type.Object({
  format: Type.Literal(FORMAT),
  platform: Type.String(),
  os_type: Type.Union([Type.Literal('windows'), Type.Literal('osx'), Type.Literal('linux')]),
  /** Where the sensor registers and reports: `https://host:port` (or `http://` behind a proxy). */
  server_url: Type.String(),
  group_id: Type.Integer(),
  /** The group's install code, presented at registration (POST /sensor/v1/register). */
  install_code: Type.String(),
  /** The file in the package holding the certificate to trust for server_url, or null when there is none. */
  ca_certificate_file: Type.Union([Type.Literal(CERTIFICATE_FILE), Type.Null()]),
  /** How the sensor should verify the server, in words. */
  tls_note: Type.String(),
});
export type SensorSettings = Static<typeof SensorSettings>;
