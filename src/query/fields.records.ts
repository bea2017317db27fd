/**
 * The catalog of the record searches (query-language reference §6, "Alert search fields" and
 * "Threat report fields"): alerts and threat reports take `q` in the same language as process
 * and binary search, over their own fields. fields.ts hands these indexes over to this file.
 * Record fields are read from the record itself, so their source is always 'process' (the
 * document searched) and they have no binary joins or dynamic families.
 */
import { closest, distance } from 'fastest-levenshtein';
import type { FieldDef, FieldType, Resolution } from './fields.js';
import { OS_TYPES, type EnumValues } from './values/enums.js';

export type RecordIndex = 'alert' | 'threat_report';

export function isRecordIndex(index: string): index is RecordIndex {
  return index === 'alert' || index === 'threat_report';
}

/** Alert statuses (reference admin §3.3); the search docs write them in lower case. */
export const ALERT_STATUSES: EnumValues = {
  unresolved: [],
  'in progress': ['in_progress', 'inprogress'],
  resolved: [],
  'false positive': ['false_positive', 'falsepositive'],
};

function fields(index: RecordIndex, list: readonly [string, FieldType, 'def' | '', Partial<FieldDef>?][]): FieldDef[] {
  return list.map(([name, type, isDefault, extra]) => ({
    name, type, process: 'process', binary: false, defaultIn: isDefault ? [index] : [], ...extra,
  }));
}

const ALERT_FIELDS = fields('alert', [
  ['alert_severity', 'integer', ''],
  ['alert_type', 'keyword', ''],
  ['assigned_to', 'keyword', 'def'],
  ['created_time', 'datetime', '', { clock: 'server' }],
  ['resolved_time', 'datetime', '', { clock: 'server' }],
  ['feed_id', 'integer', ''],
  ['feed_name', 'keyword', 'def'],
  ['group', 'keyword', ''],
  ['hostname', 'keyword', 'def'],
  ['ioc_type', 'keyword', ''],
  ['ioc_value', 'keyword', 'def'],
  ['md5', 'md5', 'def'],
  ['sha256', 'sha256', ''],
  ['observed_filename', 'keyword', 'def'],
  ['os_type', 'enum', '', { values: OS_TYPES }],
  ['process_id', 'keyword', ''],
  ['process_name', 'keyword', 'def'],
  ['process_path', 'path', 'def'],
  ['report_ignored', 'bool', ''],
  ['report_score', 'integer', ''],
  ['segment_id', 'integer', ''],
  ['sensor_id', 'integer', ''],
  ['status', 'enum', '', { values: ALERT_STATUSES }],
  ['total_hosts', 'integer', ''],
  ['unique_id', 'keyword', ''],
  ['username', 'keyword', 'def'],
  ['watchlist_id', 'keyword', 'def'],
  ['watchlist_name', 'keyword', 'def'],
]);

/** `severity_score` is the sort key published scripts use; Vigil's report severity is its score. */
const THREAT_REPORT_FIELDS = fields('threat_report', [
  ['create_time', 'datetime', '', { clock: 'server' }],
  ['update_time', 'datetime', '', { clock: 'server' }],
  ['description', 'text', 'def'],
  ['domain', 'domain', 'def'],
  ['feed_category', 'text', 'def'],
  ['feed_id', 'integer', ''],
  ['feed_name', 'keyword', 'def'],
  ['ipaddr', 'ipaddr', ''],
  ['ipv6addr', 'ipv6addr', ''],
  ['is_deleted', 'bool', ''],
  ['is_ignored', 'bool', ''],
  ['md5', 'md5', 'def'],
  ['sha256', 'sha256', ''],
  ['report_id', 'keyword', ''],
  ['score', 'integer', ''],
  ['severity_score', 'integer', ''],
  ['tags', 'text', 'def'],
  ['title', 'text', ''],
]);

const CATALOG: Record<RecordIndex, ReadonlyMap<string, FieldDef>> = {
  alert: new Map(ALERT_FIELDS.map((def) => [def.name, def])),
  threat_report: new Map(THREAT_REPORT_FIELDS.map((def) => [def.name, def])),
};

const LABEL: Record<RecordIndex, string> = { alert: 'alert', threat_report: 'threat report' };

export function resolveRecordField(written: string, index: RecordIndex): Resolution {
  const name = written.toLowerCase();
  const def = CATALOG[index].get(name);
  if (def) return { name, def, source: 'process' };
  const known = [...CATALOG[index].keys()];
  const guess = closest(name, known);
  const hint = distance(name, guess) <= Math.max(2, Math.floor(name.length / 4)) ? `did you mean "${guess}"?` : undefined;
  return { unknown: `Unknown ${LABEL[index]} field "${written}"`, ...(hint ? { hint } : {}) };
}

export function recordFields(index: RecordIndex): readonly FieldDef[] {
  return [...CATALOG[index].values()];
}
