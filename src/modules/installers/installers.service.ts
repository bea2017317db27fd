/**
 * Sensor installer packages per group (reference core §7.1): what a sensor needs to enrol in the
 * group, namely where the server is, which certificate to trust for it and the group's install
 * code, in sensor-settings.json beside the certificate and a README (installer-format.ts). Only
 * an administrator of the group downloads one, as only they may read its install code.
 *
 * Where the server is: the `publicUrl` setting when set; otherwise the scheme and Host of the
 * request that asked for the package. The address the server listens on is often not one that
 * endpoints reach (0.0.0.0, a port picked at start, a NAT or a load balancer in front), while
 * the administrator downloading the package just reached the server at the requested one. Behind a
 * TLS-terminating proxy, set publicUrl: the request then says only what the proxy forwarded.
 */
import type { Principal } from '../../domain/permissions.js';
import {
  CERTIFICATE_FILE, FORMAT, PLATFORMS, README_FILE, SETTINGS_FILE, type Platform, type SensorSettings,
} from './installer-format.js';
import { tarGzPackage, zipPackage, type PackageEntry } from './installer-package.js';

export interface InstallCodes {
  /** The group's install code; ForbiddenError unless the caller administers the group, NotFoundError for no such group. */
  installCode(actor: Principal, groupId: number): Promise<{ install_code: string }>;
}

export interface InstallerSource {
  /** The URL sensors reach the server at; empty when not configured. */
  publicUrl: string;
  /** PEM of the certificate the server serves HTTPS with, or undefined when it serves plain HTTP. */
  certificate(): string | undefined;
}

export interface InstallerPackage {
  fileName: string;
  contentType: string;
  content: Buffer;
}

const CONTENT_TYPES = { zip: 'application/zip', 'tar.gz': 'application/gzip' } as const;

export class InstallersService {
  constructor(
    private readonly installCodes: InstallCodes,
    private readonly source: InstallerSource,
    private readonly now: () => number = Date.now,
  ) {}

  /** `requestOrigin`: `scheme://host[:port]` of the request, used when no publicUrl is configured. */
  async package(actor: Principal, groupId: number, platform: Platform, requestOrigin: string): Promise<InstallerPackage> {
    const { install_code } = await this.installCodes.installCode(actor, groupId);
    const certificate = this.source.certificate();
    const settings: SensorSettings = {
      format: FORMAT,
      platform,
      os_type: PLATFORMS[platform].osType,
      server_url: (this.source.publicUrl || requestOrigin).replace(/\/+$/, ''),
      group_id: groupId,
      install_code,
      ca_certificate_file: certificate === undefined ? null : CERTIFICATE_FILE,
      tls_note: certificate === undefined
        ? 'The server serves plain HTTP (vigil serve --http), normally behind a TLS-terminating proxy: no certificate is included; verify the proxy with the system\'s trusted CAs.'
        : `Trust ${CERTIFICATE_FILE} (the server's own certificate) for server_url, and no other.`,
    };
    const entries: PackageEntry[] = [
      { name: SETTINGS_FILE, content: JSON.stringify(settings, null, 2) + '\n' },
      ...(certificate === undefined ? [] : [{ name: CERTIFICATE_FILE, content: certificate }]),
      { name: README_FILE, content: readme(settings) },
    ];
    const archive = PLATFORMS[platform].archive;
    const mtime = new Date(this.now());
    return {
      fileName: `vigil-sensor-group-${groupId}-${platform.replace('/', '-')}.${archive}`,
      contentType: CONTENT_TYPES[archive],
      content: archive === 'zip' ? await zipPackage(entries, mtime) : await tarGzPackage(entries, mtime),
    };
  }
}

function readme(settings: SensorSettings): string {
  return [
    `Vigil sensor settings for sensor group ${settings.group_id} (${settings.platform})`,
    '',
    `${SETTINGS_FILE}: where the server is (server_url), the group's install code (install_code,`,
    'a secret: whoever holds it can enrol sensors in this group), and how to verify the server (tls_note).',
    settings.ca_certificate_file === null
      ? 'No certificate is included: the server serves plain HTTP behind a proxy.'
      : `${CERTIFICATE_FILE}: the certificate the server presents; trust it for server_url.`,
    '',
    'A sensor registers with POST <server_url>/sensor/v1/register and the install code',
    '(docs/sensor-protocol.md in the Vigil sources). To try the package with simulated sensors:',
    '  vigil simulate --installer <this file>',
    '',
  ].join('\r\n');
}
