/**
 * The embedded store's threat report query dialect (threat-report-query.ts): the threat report
 * fields of the query language (src/query/fields.records.ts) over the threat_reports table
 * (alias r) joined to its feed (alias f). IOC fields match when one of the report's IOC values does.
 */
import type { SqlCondition } from '../../db/database.js';
import { compileRecordPredicate, type ColumnSpec } from '../../db/record-query.sqlite.js';
import type { Predicate } from '../../query/index.js';
import type { ThreatReportQueryDialect, ThreatReportSortField } from './threat-report-query.js';

const ioc = (type: string, column: ColumnSpec): ColumnSpec => ({
  kind: 'related', from: 'report_iocs i', link: `i.report_row = r.id AND i.ioc_type = '${type}'`, column,
});

export const THREAT_REPORT_COLUMNS: Readonly<Record<string, ColumnSpec>> = {
  create_time: { kind: 'number', sql: 'r.created_ms' },
  update_time: { kind: 'number', sql: 'r.updated_ms' },
  description: { kind: 'tokens', sql: 'r.description_tokens' },
  domain: ioc('dns', { kind: 'domain', sql: 'i.value' }),
  feed_category: { kind: 'tokens', sql: 'f.category_tokens' },
  feed_id: { kind: 'number', sql: 'r.feed_id' },
  feed_name: { kind: 'text', sql: 'f.name', fold: true },
  ipaddr: ioc('ipv4', { kind: 'address', sql: 'i.address_hex', digits: 8 }),
  ipv6addr: ioc('ipv6', { kind: 'address', sql: 'i.address_hex', digits: 32 }),
  is_deleted: { kind: 'bool', sql: 'r.is_deleted' },
  is_ignored: { kind: 'bool', sql: 'r.is_ignored' },
  md5: ioc('md5', { kind: 'text', sql: 'i.value' }),
  sha256: ioc('sha256', { kind: 'text', sql: 'i.value' }),
  report_id: { kind: 'text', sql: 'r.report_id', fold: true },
  score: { kind: 'number', sql: 'r.score' },
  severity_score: { kind: 'number', sql: 'r.score' },
  tags: { kind: 'tokens', sql: 'r.tags_tokens' },
  title: { kind: 'tokens', sql: 'r.title_tokens' },
};

/** Fields a search may sort by, as the expression to order on. */
const THREAT_REPORT_SORTS: Readonly<Record<ThreatReportSortField, string>> = {
  score: 'r.score',
  severity_score: 'r.score',
  create_time: 'r.created_ms',
  update_time: 'r.updated_ms',
  timestamp: 'r.timestamp_s',
  feed_id: 'r.feed_id',
  feed_name: 'f.name COLLATE NOCASE',
  report_id: 'r.report_id',
  title: 'r.title COLLATE NOCASE',
  is_ignored: 'r.is_ignored',
};

export function compileThreatReportPredicate(predicate: Predicate): SqlCondition {
  return compileRecordPredicate(predicate, THREAT_REPORT_COLUMNS);
}

export const SQLITE_THREAT_REPORT_QUERY: ThreatReportQueryDialect = { where: compileThreatReportPredicate, sorts: THREAT_REPORT_SORTS };
