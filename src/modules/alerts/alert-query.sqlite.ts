/**
 * The embedded store's alert query dialect (alert-query.ts): the alert fields of the query language
 * (src/query/fields.records.ts) over the alerts table (alias a) and its triage row (alias t), and
 * the columns alerts sort and facet by. report_ignored is read from the alert's threat report, so
 * an ignored report shows on every alert it raised.
 */
import type { SqlCondition } from '../../db/database.js';
import { compileRecordPredicate, type ColumnSpec } from '../../db/record-query.sqlite.js';
import type { Predicate } from '../../query/index.js';
import type { AlertFacetField, AlertQueryDialect, AlertSortField, AlertVisibility } from './alert-query.js';

const text = (sql: string, fold = false): ColumnSpec => ({ kind: 'text', sql, fold });
const number = (sql: string): ColumnSpec => ({ kind: 'number', sql });

export const ALERT_COLUMNS: Readonly<Record<string, ColumnSpec>> = {
  alert_severity: number('a.alert_severity'),
  alert_type: text('a.alert_type', true),
  assigned_to: text('t.assigned_to', true),
  created_time: number('a.created_ms'),
  resolved_time: number('t.resolved_ms'),
  feed_id: number('a.feed_id'),
  feed_name: text('a.feed_name', true),
  group: text('a.group_name', true),
  hostname: text('a.hostname', true),
  ioc_type: text('a.ioc_type', true),
  ioc_value: text('a.ioc_value', true),
  md5: text('a.md5'),
  sha256: text('a.sha256'),
  observed_filename: text('a.observed_filename', true),
  os_type: text('a.os_type', true),
  process_id: text('a.process_id', true),
  process_name: text('a.process_name', true),
  process_path: { kind: 'path', sql: 'a.process_path_key' },
  report_ignored: { kind: 'related', from: 'threat_reports r', link: 'r.id = a.report_row', column: { kind: 'bool', sql: 'r.is_ignored' } },
  report_score: number('a.report_score'),
  segment_id: number('a.segment_id'),
  sensor_id: number('a.sensor_id'),
  status: text('t.status', true),
  total_hosts: number('a.total_hosts'),
  unique_id: text('a.unique_id', true),
  username: text('a.username', true),
  watchlist_id: text('a.watchlist_id', true),
  watchlist_name: text('a.watchlist_name', true),
};

/** Fields alerts sort by, as the expression to order on. */
const ALERT_SORTS: Readonly<Record<AlertSortField, string>> = {
  created_time: 'a.created_ms',
  resolved_time: 't.resolved_ms',
  alert_severity: 'a.alert_severity',
  report_score: 'a.report_score',
  status: 't.status',
  alert_type: 'a.alert_type',
  assigned_to: 't.assigned_to',
  feed_name: 'a.feed_name COLLATE NOCASE',
  watchlist_name: 'a.watchlist_name COLLATE NOCASE',
  hostname: 'a.hostname',
  process_name: 'a.process_name',
  username: 'a.username COLLATE NOCASE',
  sensor_id: 'a.sensor_id',
  total_hosts: 'a.total_hosts',
  unique_id: 'a.unique_id',
};

/** Fields facets count, as the column holding them. */
const ALERT_FACETS: Readonly<Record<AlertFacetField, string>> = {
  status: 't.status',
  alert_type: 'a.alert_type',
  feed_name: 'a.feed_name',
  feed_id: 'a.feed_id',
  watchlist_name: 'a.watchlist_name',
  watchlist_id: 'a.watchlist_id',
  hostname: 'a.hostname',
  username: 'a.username',
  process_name: 'a.process_name',
  assigned_to: 't.assigned_to',
  group: 'a.group_name',
  ioc_type: 'a.ioc_type',
  ioc_value: 'a.ioc_value',
  md5: 'a.md5',
  os_type: 'a.os_type',
  sensor_id: 'a.sensor_id',
  report_score: 'a.report_score',
};

export function compileAlertPredicate(predicate: Predicate, visibility: AlertVisibility): SqlCondition {
  const where = compileRecordPredicate(predicate, ALERT_COLUMNS);
  if (visibility === 'all') return where;
  const groups = visibility.map(() => '?').join(', ');
  return {
    sql: `(a.group_id IS NULL${groups ? ` OR a.group_id IN (${groups})` : ''}) AND ${where.sql}`,
    params: [...visibility, ...where.params],
  };
}

export const SQLITE_ALERT_QUERY: AlertQueryDialect = { where: compileAlertPredicate, sorts: ALERT_SORTS, facets: ALERT_FACETS };
