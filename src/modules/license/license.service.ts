/**
 * The Carbon Black license endpoints, answered honestly for an open-source server: Vigil needs no
 * license, so the license is always valid, never expires and limits no sensor count, while the
 * sensor count and the server token are real. XSOAR and Splunk SOAR GET it as their connectivity
 * test. A POSTed block is checked for the shape of a Carbon Black license and kept for the record
 * (it changes nothing), so setup scripts that upload one still succeed; anything else is refused
 * as Carbon Black refused a bad license. docs/adr/0016-license-datasharing-installers.md gives the reasons.
 */
import { InvalidRequestError } from '../../domain/errors.js';
import { requireGlobalAdmin, type Principal } from '../../domain/permissions.js';
import type { LicenseStatus, LicenseUploadBody } from './license.schemas.js';
import type { LicenseStore } from './license.store.js';

/** The day Carbon Black clients are shown as the license's end: Vigil's never comes. */
export const NO_END_DATE = '9999-12-31';
export const UNLIMITED_SENSORS = -1;

/** Carbon Black's armour lines around a base64 license, as around its license request block. */
const LICENSE_BLOCK = /^\s*-[- ]*BEGIN CB LICENSE[- ]*\r?\n([A-Za-z0-9+/=\s]+?)\r?\n\s*-[- ]*END CB LICENSE[- ]*\s*$/;

export interface SensorCounter {
  /** Sensors registered with this server. */
  count(): Promise<number>;
}

export class LicenseService {
  constructor(
    private readonly store: LicenseStore,
    private readonly sensors: SensorCounter,
    private readonly vigilVersion: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Any authenticated user: integrations test their token with it. */
  async status(_actor: Principal): Promise<LicenseStatus> {
    const [{ serverToken }, sensorCount] = await Promise.all([this.store.get(), this.sensors.count()]);
    return {
      license_valid: true,
      license_end_date: NO_END_DATE,
      licensed_sensor_count: UNLIMITED_SENSORS,
      server_token: serverToken,
      license_expired: false,
      licensed_sensor_count_exceeded: false,
      actual_sensor_count: sensorCount,
      license_request_block: requestBlock({ server_token: serverToken, actual_sensor_count: sensorCount, vigil_version: this.vigilVersion }),
    };
  }

  async upload(actor: Principal, body: LicenseUploadBody): Promise<{ status: 'success' }> {
    requireGlobalAdmin(actor, 'upload a license');
    if (!isLicenseBlock(body.license)) {
      throw new InvalidRequestError('Invalid license: expected a Carbon Black license block', { result: 'failure', error: 'Invalid license' });
    }
    await this.store.saveBlock(body.license, this.now());
    return { status: 'success' };
  }
}

function isLicenseBlock(text: string): boolean {
  const payload = LICENSE_BLOCK.exec(text)?.[1]?.replace(/\s+/g, '');
  return payload !== undefined && payload.length % 4 === 0 && Buffer.from(payload, 'base64').length > 0;
}

/** What a Carbon Black server asked its vendor for a license with; here it describes this server. */
function requestBlock(facts: Record<string, unknown>): string {
  const base64 = Buffer.from(JSON.stringify(facts)).toString('base64').replace(/.{1,64}/g, '$&\n');
  return `-- --- BEGIN CB LICENSE REQUEST --- --\n${base64}-- --- END CB LICENSE REQUEST --- --\n`;
}
