/** Wire shapes of threat reports (reference admin §4.4, §4.5). */
import { Type, type Static } from '@sinclair/typebox';
import { IntegerId } from '../../http/schemas.js';
import { searchEnvelope } from '../../http/record-search.schemas.js';

/** A report as its feed wrote it, with its feed and the flags this server keeps. */
export const ThreatReport = Type.Object({
  id: Type.String({ description: 'the report id in its feed; cbapi keys reports as "<feed_id>:<id>"' }),
  feed_id: Type.Integer(),
  feed_name: Type.String(),
  feed_category: Type.Union([Type.String(), Type.Null()]),
  title: Type.String(),
  description: Type.String(),
  link: Type.String(),
  score: Type.Integer({ description: '-100..100' }),
  severity_score: Type.Integer({ description: 'the score, under the name clients sort by' }),
  timestamp: Type.Integer({ description: 'the feed\'s timestamp of the report, epoch seconds' }),
  create_time: Type.String({ description: 'when this server first stored it' }),
  update_time: Type.String({ description: 'when a synchronization last changed it' }),
  is_ignored: Type.Boolean({ description: 'true: its hits raise no alerts' }),
  is_deleted: Type.Boolean({ description: 'true: a full synchronization no longer found it in the feed' }),
  tags: Type.Array(Type.String()),
  iocs: Type.Record(Type.String(), Type.Unknown()),
});
export type ThreatReport = Static<typeof ThreatReport>;

export const ThreatReportSearchReply = searchEnvelope(ThreatReport);
export type ThreatReportSearchReply = Static<typeof ThreatReportSearchReply>;

export const ThreatReportParams = Type.Object({ id: IntegerId, report_id: Type.String({ minLength: 1, maxLength: 1024 }) });

/** By ids (`{"<feed_id>": ["<report id>", …]}`) or by query (a URL query string); only is_ignored can change. */
export const ThreatReportUpdateBody = Type.Object({
  // propertyNames: a Record's key pattern alone only selects which values to check, so a key
  // like "" would pass with any value at all.
  ids: Type.Optional(Type.Record(Type.String({ pattern: '^\\d+$' }), Type.Array(Type.String({ maxLength: 1024 }), { maxItems: 100_000 }), {
    propertyNames: { pattern: '^\\d{1,15}$' },
  })),
  query: Type.Optional(Type.String({ maxLength: 65536, examples: ['cb.urlver=1&q=title%3Atest'] })),
  updates: Type.Object({ is_ignored: Type.Boolean() }),
});
export type ThreatReportUpdateBody = Static<typeof ThreatReportUpdateBody>;
