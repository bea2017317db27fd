/**
 * Wire shape of GET /api/v1/dashboard/statistics. Carbon Black's keys were never captured
 * (reference admin §9.3, open item 3): these are Vigil's, chosen after what the Cb Response
 * console's dashboard showed (sensors by status and OS, stored processes and binaries, alerts by
 * status, recent watchlist hits). cbapi's dashboard_statistics() hands the object back as is.
 */
import { Type, type Static } from '@sinclair/typebox';

const Count = (description: string) => Type.Integer({ minimum: 0, description });

export const DashboardStatistics = Type.Object({
  sensors: Type.Object({
    total: Count('Sensors the caller can see'),
    online: Count('Checked in within three check-in intervals'),
    offline: Count('Not heard from for longer'),
    uninstalled: Count('Confirmed an uninstall'),
    isolated: Count('Report network isolation in force'),
    by_os: Type.Object({ windows: Count('Windows sensors'), osx: Count('macOS sensors'), linux: Count('Linux sensors') }),
  }),
  processes: Type.Object({
    total: Count('Processes stored'),
    documents: Count('Process documents (segments) in mounted partitions'),
  }),
  binaries: Type.Object({
    total: Count('Binaries a visible sensor reported'),
    new_last_24_hours: Count('Of those, first seen by the server in the last 24 hours'),
  }),
  alerts: Type.Object({
    total: Count('Alerts on visible sensor groups'),
    unresolved: Count('Unresolved'),
    in_progress: Count('In Progress'),
    resolved: Count('Resolved'),
    false_positive: Count('False Positive'),
  }),
  watchlist_hits: Type.Object({
    last_hour: Count('Process and binary documents watchlists tagged in the last hour'),
    last_24_hours: Count('… in the last 24 hours'),
    last_7_days: Count('… in the last 7 days'),
  }),
  generated_at: Type.String({ description: 'Server-local "YYYY-MM-DD HH:MM:SS.ffffff±HH:MM"' }),
});
export type DashboardStatistics = Static<typeof DashboardStatistics>;
