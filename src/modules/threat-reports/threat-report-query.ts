/**
 * What threat report search names, and what each database's dialect supplies for it: the query
 * language's predicate as a WHERE clause over threat_reports (alias r) joined to its feed (alias f),
 * and the expression each sort field reads. threat-report-query.sqlite.ts is the embedded store's;
 * the container hands one to SqlThreatReportsStore (docs/adr/0018-sqlite-seam.md).
 */
import type { SqlCondition } from '../../db/database.js';
import type { Predicate } from '../../query/index.js';

/** Fields a search may sort by. */
export const THREAT_REPORT_SORT_FIELDS = [
  'score', 'severity_score', 'create_time', 'update_time', 'timestamp', 'feed_id', 'feed_name', 'report_id', 'title', 'is_ignored',
] as const;
export type ThreatReportSortField = (typeof THREAT_REPORT_SORT_FIELDS)[number];

export interface ThreatReportQueryDialect {
  where(predicate: Predicate): SqlCondition;
  /** Per sort field, the expression to order on. */
  readonly sorts: Readonly<Record<ThreatReportSortField, string>>;
}
