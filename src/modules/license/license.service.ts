/**
 * The Carbon Black license endpoints, answered honestly for an open-source server: Vigil needs no
 * license, so the license is always valid, never expires and limits no sensor count, while the
 * sensor count and the server token are real. XSOAR and Splunk SOAR GET it as their connectivity
 * test. A POSTed license is refused, with the body Carbon Black refused a bad license with: there
 * is nothing a license could change, and answering success would claim it was applied.
 * docs/adr/0016-license-datasharing-installers.md gives the reasons.
 */
import { InvalidRequestError } from '../../domain/errors.js';
import { requireGlobalAdmin, type Principal } from '../../domain/permissions.js';
import type { LicenseStatus, LicenseUploadBody } from './license.schemas.js';
import type { LicenseStore } from './license.store.js';

/** The day Carbon Black clients are shown as the license's end: Vigil's never comes. */
export const NO_END_DATE = '9999-12-31';
export const UNLIMITED_SENSORS = -1;

export interface SensorCounter {
  /** Sensors registered with this server. */
  count(): Promise<number>;
}

export class LicenseService {
  constructor(
    private readonly store: LicenseStore,
    private readonly sensors: SensorCounter,
    private readonly vigilVersion: string,
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

  /** Always refused: Vigil needs no license, so an upload could change nothing. */
  upload(actor: Principal, _body: LicenseUploadBody): Promise<never> {
    requireGlobalAdmin(actor, 'upload a license');
    const error = 'Vigil needs no license: it is always valid and unlimited, so nothing was applied';
    return Promise.reject(new InvalidRequestError(error, { result: 'failure', error }));
  }
}

/** What a Carbon Black server asked its vendor for a license with; here it describes this server. */
function requestBlock(facts: Record<string, unknown>): string {
  const base64 = Buffer.from(JSON.stringify(facts)).toString('base64').replace(/.{1,64}/g, '$&\n');
  return `-- --- BEGIN CB LICENSE REQUEST --- --\n${base64}-- --- END CB LICENSE REQUEST --- --\n`;
}
