/** The license record (reference admin §9.2): what cbapi, XSOAR and SOAR read from /api/license. */
import { Type, type Static } from '@sinclair/typebox';

export const LicenseStatus = Type.Object({
  license_valid: Type.Boolean(),
  /** "YYYY-MM-DD". */
  license_end_date: Type.String(),
  /** -1: no limit, as a sensor group's max_licenses says it. */
  licensed_sensor_count: Type.Integer(),
  server_token: Type.String(),
  license_expired: Type.Boolean(),
  licensed_sensor_count_exceeded: Type.Boolean(),
  actual_sensor_count: Type.Integer(),
  license_request_block: Type.String(),
});
export type LicenseStatus = Static<typeof LicenseStatus>;

export const LicenseUploadBody = Type.Object({ license: Type.String({ maxLength: 64 * 1024 }) });
export type LicenseUploadBody = Static<typeof LicenseUploadBody>;

