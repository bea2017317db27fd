/**
 * Alerts: raised by the detection store (insertAlert, inside its transaction), searched with the
 * query language, triaged one at a time or in bulk. An alert's row never changes; its status and
 * assignee live in a narrow triage row, so that a bulk change over a million alerts rewrites
 * narrow rows, in one pass over the selection. Written against SqlDatabase;
 * alerts.store.contract.ts is its contract.
 */
import type { SqlDatabase, SqlExecutor, SqlValue } from '../../db/database.js';
import type { Predicate } from '../../query/index.js';
import type { SortKey } from '../../query/record-search.js';
import { ALERT_FACETS, ALERT_SORTS, compileAlertPredicate, type AlertVisibility } from './alert-query.sqlite.js';

export const ALERT_STATUSES = ['Unresolved', 'In Progress', 'Resolved', 'False Positive'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];
/** Statuses that close an alert: it gets a resolved time. */
export const CLOSED_STATUSES: readonly AlertStatus[] = ['Resolved', 'False Positive'];

/** The process an alert is about, as it was at the time of the hit. */
export interface AlertProcess {
  segmentRow: number;
  processId: string;
  segmentId: number;
  processName: string;
  processPath: string;
  processPathKey: string;
  username: string;
  sha256: string;
  hostname: string;
  groupId: number;
  groupName: string;
  sensorId: number;
  osType: string;
  commsIp: string;
  interfaceIp: string;
  counts: { modload: number; filemod: number; regmod: number; netconn: number; childproc: number; crossproc: number };
}

export interface NewAlert {
  uniqueId: string;
  alertType: string;
  createdMs: number;
  watchlistId: string;
  watchlistName: string;
  feedId: number;
  feedName: string;
  reportRow: number | null;
  reportScore: number;
  feedRating: number;
  sensorCriticality: number;
  iocConfidence: number;
  alertSeverity: number;
  iocType: string;
  iocValue: string;
  /** JSON text. */
  iocAttr: string;
  description: string | null;
  link: string | null;
  md5: string | null;
  observedFilename: string | null;
  process: AlertProcess | null;
  totalHosts: number;
}

export interface AlertRecord extends NewAlert {
  status: AlertStatus;
  resolvedMs: number | null;
  assignedTo: string | null;
  /** The report's is_ignored now; null for watchlist alerts. */
  reportIgnored: boolean | null;
}

/** What a triage changes; absent fields stay. `assignedTo: null` clears the assignee. */
export interface AlertChanges {
  status?: AlertStatus;
  assignedTo?: string | null;
  /** Sets is_ignored on the reports behind the alerts (feed alerts). */
  reportIgnored?: boolean;
}

/** Which alerts a bulk change touches: those named and/or those matching, optionally only one page of the matches. */
export interface AlertSelection {
  uniqueIds?: readonly string[];
  predicate?: Predicate;
  page?: { sort: readonly SortKey[]; start: number; rows: number };
}

export interface AlertsStore {
  search(predicate: Predicate, visibility: AlertVisibility, sort: readonly SortKey[], start: number, rows: number): Promise<{ total: number; alerts: AlertRecord[] }>;
  facet(predicate: Predicate, visibility: AlertVisibility, field: string, limit: number): Promise<{ value: string; count: number }[]>;
  get(uniqueId: string, visibility: AlertVisibility): Promise<AlertRecord | undefined>;
  /** Applies the changes to the alerts selected (and visible); how many alerts matched. */
  change(selection: AlertSelection, visibility: AlertVisibility, changes: AlertChanges, atMs: number): Promise<number>;
}

interface AlertRow {
  id: number;
  unique_id: string;
  alert_type: string;
  created_ms: number;
  status: AlertStatus;
  resolved_ms: number | null;
  assigned_to: string | null;
  watchlist_id: string;
  watchlist_name: string;
  feed_id: number;
  feed_name: string;
  report_row: number | null;
  report_ignored: number | boolean | null;
  report_score: number;
  feed_rating: number;
  sensor_criticality: number;
  ioc_confidence: number;
  alert_severity: number;
  ioc_type: string;
  ioc_value: string;
  ioc_attr: string;
  description: string | null;
  link: string | null;
  segment_row: number | null;
  process_id: string | null;
  segment_id: number | null;
  process_name: string | null;
  process_path: string | null;
  process_path_key: string | null;
  username: string | null;
  md5: string | null;
  sha256: string | null;
  observed_filename: string | null;
  hostname: string | null;
  group_id: number | null;
  group_name: string | null;
  sensor_id: number | null;
  os_type: string | null;
  comms_ip: string | null;
  interface_ip: string | null;
  modload_count: number | null;
  filemod_count: number | null;
  regmod_count: number | null;
  netconn_count: number | null;
  childproc_count: number | null;
  crossproc_count: number | null;
  total_hosts: number;
}

const FROM = 'alerts a JOIN alert_triage t ON t.alert_id = a.id';
const SELECT = `SELECT a.*, t.status, t.resolved_ms, t.assigned_to, r.is_ignored AS report_ignored
  FROM ${FROM} LEFT JOIN threat_reports r ON r.id = a.report_row`;

export class SqlAlertsStore implements AlertsStore {
  constructor(private readonly db: SqlDatabase) {}

  async search(predicate: Predicate, visibility: AlertVisibility, sort: readonly SortKey[], start: number, rows: number) {
    const where = compileAlertPredicate(predicate, visibility);
    const count = await this.db.get<{ total: number }>(`SELECT COUNT(*) AS total FROM ${FROM} WHERE ${where.sql}`, where.params);
    const page = rows === 0 ? [] : await this.db.all<AlertRow>(
      `${SELECT} WHERE ${where.sql} ORDER BY ${orderBy(sort)} LIMIT ? OFFSET ?`, [...where.params, rows, start],
    );
    return { total: count!.total, alerts: page.map(toRecord) };
  }

  async facet(predicate: Predicate, visibility: AlertVisibility, field: string, limit: number) {
    const column = ALERT_FACETS[field];
    if (!column) throw new Error(`Alerts have no facet ${field}`);
    const where = compileAlertPredicate(predicate, visibility);
    const counts = await this.db.all<{ value: SqlValue; count: number }>(
      `SELECT ${column} AS value, COUNT(*) AS count FROM ${FROM} WHERE ${where.sql} AND ${column} IS NOT NULL
       GROUP BY ${column} ORDER BY count DESC, value LIMIT ?`,
      [...where.params, limit],
    );
    return counts.map((entry) => ({ value: String(entry.value), count: entry.count }));
  }

  async get(uniqueId: string, visibility: AlertVisibility): Promise<AlertRecord | undefined> {
    const where = compileAlertPredicate({ op: 'all' }, visibility);
    const row = await this.db.get<AlertRow>(`${SELECT} WHERE a.unique_id = ? AND ${where.sql}`, [uniqueId, ...where.params]);
    return row && toRecord(row);
  }

  /**
   * Walks the alerts in ranges of ids, one transaction per range: each changes the alerts of its
   * range that match, so the write lock is held briefly and the other writers (ingest, detection)
   * go on between ranges. Each alert's match is read once, before it changes. Alerts named by id, a page of matches, or a selection whose reports change (which
   * could change what later alerts match) are fixed whole first.
   */
  async change(selection: AlertSelection, visibility: AlertVisibility, changes: AlertChanges, atMs: number): Promise<number> {
    const where = selected(selection, visibility);
    if (selection.page || selection.uniqueIds || changes.reportIgnored !== undefined) {
      const ids = (await this.db.all<{ id: number }>(`SELECT a.id FROM ${FROM} WHERE ${where.sql}`, where.params)).map((row) => row.id);
      for (let i = 0; i < ids.length; i += ID_CHUNK) {
        await this.db.transaction((tx) => applyChanges(tx, ids.slice(i, i + ID_CHUNK), changes, atMs));
      }
      return ids.length;
    }
    const sets = assignments(changes, atMs);
    if (!sets) return (await this.db.get<{ matched: number }>(`SELECT COUNT(*) AS matched FROM ${FROM} WHERE ${where.sql}`, where.params))!.matched;
    const last = (await this.db.get<{ last: number | null }>('SELECT MAX(id) AS last FROM alerts'))?.last ?? 0;
    let changed = 0;
    for (let from = 0; from < last; from += SCAN_CHUNK) {
      const result = await this.db.transaction((tx) => tx.run(
        `UPDATE alert_triage AS t SET ${sets.sql} FROM alerts AS a
         WHERE a.id = t.alert_id AND t.alert_id > ? AND t.alert_id <= ? AND ${where.sql}`,
        [...sets.params, from, from + SCAN_CHUNK, ...where.params],
      ));
      changed += result.changes;
    }
    return changed;
  }
}

/**
 * Alerts per transaction: a bound on how long a bulk change holds the write lock. A walk over the
 * table takes ranges of alert ids; fixed selections go by id lists, which bound parameters limit.
 */
const SCAN_CHUNK = 50_000;
const ID_CHUNK = 10_000;

/** The SET clause of a triage change; undefined when it changes no triage field. */
function assignments(changes: AlertChanges, atMs: number): { sql: string; params: SqlValue[] } | undefined {
  const sets: string[] = [];
  const params: SqlValue[] = [];
  if (changes.status !== undefined) {
    const closed = CLOSED_STATUSES.includes(changes.status);
    sets.push('status = ?', closed ? 'resolved_ms = COALESCE(resolved_ms, ?)' : 'resolved_ms = NULL');
    params.push(changes.status, ...(closed ? [atMs] : []));
  }
  if (changes.assignedTo !== undefined) {
    sets.push('assigned_to = ?');
    params.push(changes.assignedTo);
  }
  return sets.length === 0 ? undefined : { sql: sets.join(', '), params };
}

async function applyChanges(tx: SqlExecutor, ids: readonly number[], changes: AlertChanges, atMs: number): Promise<void> {
  if (ids.length === 0) return;
  const list = ids.map(() => '?').join(', ');
  if (changes.reportIgnored !== undefined) {
    await tx.run(
      `UPDATE threat_reports SET is_ignored = ? WHERE id IN (SELECT report_row FROM alerts WHERE id IN (${list}) AND report_row IS NOT NULL)`,
      [changes.reportIgnored, ...ids],
    );
  }
  const sets = assignments(changes, atMs);
  if (sets) await tx.run(`UPDATE alert_triage SET ${sets.sql} WHERE alert_id IN (${list})`, [...sets.params, ...ids]);
}

function selected(selection: AlertSelection, visibility: AlertVisibility): { sql: string; params: SqlValue[] } {
  const matching = compileAlertPredicate(selection.predicate ?? { op: 'all' }, visibility);
  const parts = [matching.sql];
  const params = [...matching.params];
  if (selection.uniqueIds !== undefined) {
    parts.push(selection.uniqueIds.length === 0 ? '0' : `a.unique_id IN (${selection.uniqueIds.map(() => '?').join(', ')})`);
    params.push(...selection.uniqueIds);
  }
  if (selection.page) {
    const { sort, start, rows } = selection.page;
    return {
      sql: `a.id IN (SELECT a.id FROM ${FROM} WHERE ${parts.join(' AND ')} ORDER BY ${orderBy(sort)} LIMIT ? OFFSET ?)`,
      params: [...params, rows, start],
    };
  }
  return { sql: parts.join(' AND '), params };
}

function orderBy(sort: readonly SortKey[]): string {
  const keys = sort.map((key) => {
    const column = ALERT_SORTS[key.field];
    if (!column) throw new Error(`Alerts cannot sort by ${key.field}`);
    return `${column} ${key.descending ? 'DESC' : 'ASC'}`;
  });
  return [...keys, `a.id ${sort[0]?.descending ? 'DESC' : 'ASC'}`].join(', ');
}

const ALERT_COLUMNS_IN_ORDER = [
  'unique_id', 'alert_type', 'created_ms', 'watchlist_id', 'watchlist_name', 'feed_id', 'feed_name', 'report_row',
  'report_score', 'feed_rating', 'sensor_criticality', 'ioc_confidence', 'alert_severity', 'ioc_type', 'ioc_value', 'ioc_attr',
  'description', 'link', 'md5', 'observed_filename', 'total_hosts', 'segment_row', 'process_id', 'segment_id', 'process_name',
  'process_path', 'process_path_key', 'username', 'sha256', 'hostname', 'group_id', 'group_name', 'sensor_id', 'os_type',
  'comms_ip', 'interface_ip', 'modload_count', 'filemod_count', 'regmod_count', 'netconn_count', 'childproc_count', 'crossproc_count',
] as const;

/** Adds an Unresolved alert, inside the caller's transaction. */
export async function insertAlert(tx: SqlExecutor, alert: NewAlert): Promise<void> {
  const p = alert.process;
  const values: SqlValue[] = [
    alert.uniqueId, alert.alertType, alert.createdMs, alert.watchlistId, alert.watchlistName, alert.feedId, alert.feedName,
    alert.reportRow, alert.reportScore, alert.feedRating, alert.sensorCriticality, alert.iocConfidence, alert.alertSeverity, alert.iocType,
    alert.iocValue, alert.iocAttr, alert.description, alert.link, alert.md5, alert.observedFilename, alert.totalHosts,
    p?.segmentRow ?? null, p?.processId ?? null, p?.segmentId ?? null, p?.processName ?? null, p?.processPath ?? null,
    p?.processPathKey ?? null, p?.username ?? null, p?.sha256 ?? null, p?.hostname ?? null, p?.groupId ?? null, p?.groupName ?? null,
    p?.sensorId ?? null, p?.osType ?? null, p?.commsIp ?? null, p?.interfaceIp ?? null, p?.counts.modload ?? null,
    p?.counts.filemod ?? null, p?.counts.regmod ?? null, p?.counts.netconn ?? null, p?.counts.childproc ?? null, p?.counts.crossproc ?? null,
  ];
  const row = await tx.get<{ id: number }>(
    `INSERT INTO alerts (${ALERT_COLUMNS_IN_ORDER.join(', ')}) VALUES (${ALERT_COLUMNS_IN_ORDER.map(() => '?').join(', ')}) RETURNING id`,
    values,
  );
  await tx.run(`INSERT INTO alert_triage (alert_id, status) VALUES (?, 'Unresolved')`, [row!.id]);
}

function toRecord(row: AlertRow): AlertRecord {
  return {
    uniqueId: row.unique_id,
    alertType: row.alert_type,
    createdMs: row.created_ms,
    status: row.status,
    resolvedMs: row.resolved_ms,
    assignedTo: row.assigned_to,
    watchlistId: row.watchlist_id,
    watchlistName: row.watchlist_name,
    feedId: row.feed_id,
    feedName: row.feed_name,
    reportRow: row.report_row,
    reportIgnored: row.report_ignored === null ? null : Boolean(row.report_ignored),
    reportScore: row.report_score,
    feedRating: row.feed_rating,
    sensorCriticality: row.sensor_criticality,
    iocConfidence: row.ioc_confidence,
    alertSeverity: row.alert_severity,
    iocType: row.ioc_type,
    iocValue: row.ioc_value,
    iocAttr: row.ioc_attr,
    description: row.description,
    link: row.link,
    md5: row.md5,
    observedFilename: row.observed_filename,
    totalHosts: row.total_hosts,
    process: row.segment_row === null ? null : {
      segmentRow: row.segment_row,
      processId: row.process_id!,
      segmentId: row.segment_id!,
      processName: row.process_name!,
      processPath: row.process_path!,
      processPathKey: row.process_path_key!,
      username: row.username!,
      sha256: row.sha256 ?? '',
      hostname: row.hostname!,
      groupId: row.group_id!,
      groupName: row.group_name!,
      sensorId: row.sensor_id!,
      osType: row.os_type!,
      commsIp: row.comms_ip!,
      interfaceIp: row.interface_ip!,
      counts: {
        modload: row.modload_count ?? 0, filemod: row.filemod_count ?? 0, regmod: row.regmod_count ?? 0,
        netconn: row.netconn_count ?? 0, childproc: row.childproc_count ?? 0, crossproc: row.crossproc_count ?? 0,
      },
    },
  };
}
