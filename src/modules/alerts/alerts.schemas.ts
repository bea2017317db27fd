/** Wire shapes of alerts (reference admin §3): the alert document, its search and its updates. */
import { Type, type Static } from '@sinclair/typebox';
import { searchEnvelope } from '../../http/record-search.schemas.js';

const Status = Type.Union(['Unresolved', 'In Progress', 'Resolved', 'False Positive'].map((s) => Type.Literal(s)));

/**
 * An alert as Solr gave it: fields without a value are left out (assigned_to until someone
 * triages, resolved_time until resolved, the process fields on binary alerts).
 */
export const Alert = Type.Object({
  unique_id: Type.String(),
  alert_type: Type.String({ description: 'watchlist.hit.query.process|binary, watchlist.hit.ingress.process|binary' }),
  status: Status,
  created_time: Type.String(),
  resolved_time: Type.Optional(Type.String()),
  assigned_to: Type.Optional(Type.String()),
  watchlist_id: Type.String({ description: 'the watchlist\'s id, or the report id for feed alerts' }),
  watchlist_name: Type.String({ description: 'the watchlist\'s name, or the report title for feed alerts' }),
  feed_id: Type.Integer({ description: '-1 for watchlist alerts' }),
  feed_name: Type.String({ description: '"My Watchlists" for watchlist alerts' }),
  report_score: Type.Integer(),
  report_ignored: Type.Optional(Type.Boolean()),
  feed_rating: Type.Number(),
  sensor_criticality: Type.Number(),
  ioc_confidence: Type.Number(),
  alert_severity: Type.Number(),
  ioc_type: Type.String(),
  ioc_value: Type.String(),
  ioc_attr: Type.String({ description: 'JSON text' }),
  description: Type.Optional(Type.String()),
  link: Type.Optional(Type.String()),
  md5: Type.Optional(Type.String()),
  sha256: Type.Optional(Type.String()),
  observed_filename: Type.Optional(Type.String()),
  process_id: Type.Optional(Type.String()),
  process_unique_id: Type.Optional(Type.String()),
  segment_id: Type.Optional(Type.Integer()),
  process_name: Type.Optional(Type.String()),
  process_path: Type.Optional(Type.String()),
  username: Type.Optional(Type.String()),
  hostname: Type.Optional(Type.String()),
  group: Type.Optional(Type.String()),
  sensor_id: Type.Optional(Type.Integer()),
  os_type: Type.Optional(Type.String()),
  comms_ip: Type.Optional(Type.String({ description: 'dotted, unlike process documents' })),
  interface_ip: Type.Optional(Type.String()),
  modload_count: Type.Optional(Type.Integer()),
  filemod_count: Type.Optional(Type.Integer()),
  regmod_count: Type.Optional(Type.Integer()),
  netconn_count: Type.Optional(Type.Integer()),
  childproc_count: Type.Optional(Type.Integer()),
  crossproc_count: Type.Optional(Type.Integer()),
  total_hosts: Type.Integer(),
});
export type Alert = Static<typeof Alert>;

export const AlertSearchReply = searchEnvelope(Alert);
export type AlertSearchReply = Static<typeof AlertSearchReply>;

export const AlertParams = Type.Object({ unique_id: Type.String({ minLength: 1, maxLength: 128 }) });

/** Statuses in any case; the stored form is the canonical one. */
const RequestedStatus = Type.String({ maxLength: 32, description: 'Unresolved, In Progress, Resolved or False Positive' });

/** cbapi POSTs {status, unique_id}, or the whole alert document from Alert.save(); only status and assigned_to are applied. */
export const AlertUpdateBody = Type.Object({
  status: Type.Optional(RequestedStatus),
  assigned_to: Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: 256 })),
});
export type AlertUpdateBody = Static<typeof AlertUpdateBody>;

export const AlertBulkBody = Type.Object({
  alert_ids: Type.Optional(Type.Array(Type.String({ maxLength: 128 }), { maxItems: 10_000 })),
  query: Type.Optional(Type.String({ maxLength: 65536, description: 'a URL query string: q=…, cb.fq.<field>=…; rows, start and sort limit it to one page' })),
  requested_status: Type.Optional(RequestedStatus),
  set_ignored: Type.Optional(Type.Boolean({ description: 'set is_ignored on the reports behind the alerts: they raise no more alerts' })),
  assigned_to: Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: 256 })),
});
export type AlertBulkBody = Static<typeof AlertBulkBody>;
