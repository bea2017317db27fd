/** GET /api/info, as the real 6.2 server answered it (reference core §2.4). */
import { Type, type Static } from '@sinclair/typebox';

export const ServerInfo = Type.Object({
  version: Type.String({ description: 'The Carbon Black server version Vigil is compatible with; cbapi switches behaviour on it.' }),
  version_release: Type.String(),
  vigil_version: Type.String({ description: 'Vigil\'s own release.' }),
  cblrEnabled: Type.Boolean({ description: 'Whether live response is available.' }),
  banningEnabled: Type.Boolean(),
  binaryPageSize: Type.Integer(),
  processPageSize: Type.Integer(),
  maxSearchResultRows: Type.Integer(),
  maxRowsSolrReportQuery: Type.Integer(),
  searchExportCount: Type.Integer(),
  binaryOrder: Type.String(),
  processOrder: Type.String(),
  liveResponseAutoAttach: Type.Boolean(),
  timestampDeltaThreshold: Type.Integer(),
  linuxInstallerExists: Type.Boolean(),
  osxInstallerExists: Type.Boolean(),
  vdiGloballyEnabled: Type.Boolean(),
  cloud_install: Type.Boolean(),
  features: Type.Object({
    immutable_documents: Type.Boolean(),
    event_exclusions: Type.Boolean(),
    thirdparty_sharing: Type.Boolean(),
    ipv6_support: Type.Boolean(),
  }),
  user_preferences: Type.Record(Type.String(), Type.Unknown()),
  storage_warning: Type.Union([Type.String(), Type.Null()], {
    description: 'Vigil\'s own: why event storage needs attention (the disk is filling and old partitions will be deleted), or null.',
  }),
  notification_warning: Type.Union([Type.String(), Type.Null()], {
    description: 'Vigil\'s own: which notification channels (email, syslog, HTTP POST actions) are failing and why, or null.',
  }),
});
export type ServerInfo = Static<typeof ServerInfo>;
