/**
 * What alert search names, and what each database's dialect supplies for it: the query language's
 * predicate as a WHERE clause over the alerts table (alias a) and its triage row (alias t), and the
 * expression each sort and facet field reads. alert-query.sqlite.ts is the embedded store's; the
 * container hands one to SqlAlertsStore (docs/adr/0018-sqlite-seam.md).
 */
import type { SqlCondition } from '../../db/database.js';
import type { Predicate } from '../../query/index.js';

/** Fields alerts sort by. */
export const ALERT_SORT_FIELDS = [
  'created_time', 'resolved_time', 'alert_severity', 'report_score', 'status', 'alert_type', 'assigned_to', 'feed_name',
  'watchlist_name', 'hostname', 'process_name', 'username', 'sensor_id', 'total_hosts', 'unique_id',
] as const;
export type AlertSortField = (typeof ALERT_SORT_FIELDS)[number];

/** Fields alert facets count. */
export const ALERT_FACET_FIELDS = [
  'status', 'alert_type', 'feed_name', 'feed_id', 'watchlist_name', 'watchlist_id', 'hostname', 'username', 'process_name',
  'assigned_to', 'group', 'ioc_type', 'ioc_value', 'md5', 'os_type', 'sensor_id', 'report_score',
] as const;
export type AlertFacetField = (typeof ALERT_FACET_FIELDS)[number];

/** Groups a caller may see alerts of; binary alerts belong to no group and are seen by all. */
export type AlertVisibility = 'all' | readonly number[];

export interface AlertQueryDialect {
  /** The alerts matching the predicate that the caller may see. */
  where(predicate: Predicate, visibility: AlertVisibility): SqlCondition;
  /** Per sort field, the expression to order on. */
  readonly sorts: Readonly<Record<AlertSortField, string>>;
  /** Per facet field, the column holding it. */
  readonly facets: Readonly<Record<AlertFacetField, string>>;
}
