/**
 * Alerts: raised by the detection store (insertAlert, inside its transaction), searched with the
 * query language, triaged one at a time or in bulk. An alert's row never changes; its status and
 * assignee live in a narrow triage row, so that a bulk change over a million alerts rewrites
 * narrow rows, in one pass over the selection. Written against SqlDatabase, with the
 * dialect's alert query (alert-query.ts) for what the query language compiles to;
 * alerts.store.contract.ts is its contract.
 */
import type { SqlCondition, SqlDatabase, SqlExecutor, SqlValue } from '../../db/database.js';
import type { Predicate } from '../../query/index.js';
import type { SortKey } from '../../query/record-search.js';
import type { AlertQueryDialect, AlertVisibility } from './alert-query.js';
import { toRecord, type AlertRow } from './alert-rows.js';

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

/** What applies bulk changes: the store itself, or a thread of its own on the embedded store (alert-changes.threaded.ts). */
export type AlertChanger = Pick<AlertsStore, 'change'>;

const FROM = 'alerts a JOIN alert_triage t ON t.alert_id = a.id';
const SELECT = `SELECT a.*, t.status, t.resolved_ms, t.assigned_to, r.is_ignored AS report_ignored
  FROM ${FROM} LEFT JOIN threat_reports r ON r.id = a.report_row`;

export class SqlAlertsStore implements AlertsStore {
  constructor(private readonly db: SqlDatabase, private readonly query: AlertQueryDialect) {}

  async search(predicate: Predicate, visibility: AlertVisibility, sort: readonly SortKey[], start: number, rows: number) {
    const where = this.query.where(predicate, visibility);
    const count = await this.db.get<{ total: number }>(`SELECT COUNT(*) AS total FROM ${FROM} WHERE ${where.sql}`, where.params);
    const page = rows === 0 ? [] : await this.db.all<AlertRow>(
      `${SELECT} WHERE ${where.sql} ORDER BY ${orderBy(this.query, sort)} LIMIT ? OFFSET ?`, [...where.params, rows, start],
    );
    return { total: count!.total, alerts: page.map(toRecord) };
  }

  async facet(predicate: Predicate, visibility: AlertVisibility, field: string, limit: number) {
    const column = columnOf(this.query.facets, field);
    if (!column) throw new Error(`Alerts have no facet ${field}`);
    const where = this.query.where(predicate, visibility);
    const counts = await this.db.all<{ value: SqlValue; count: number }>(
      `SELECT ${column} AS value, COUNT(*) AS count FROM ${FROM} WHERE ${where.sql} AND ${column} IS NOT NULL
       GROUP BY ${column} ORDER BY count DESC, value LIMIT ?`,
      [...where.params, limit],
    );
    return counts.map((entry) => ({ value: String(entry.value), count: entry.count }));
  }

  async get(uniqueId: string, visibility: AlertVisibility): Promise<AlertRecord | undefined> {
    const where = this.query.where({ op: 'all' }, visibility);
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
    const where = selected(this.query, selection, visibility);
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

function selected(query: AlertQueryDialect, selection: AlertSelection, visibility: AlertVisibility): SqlCondition {
  const matching = query.where(selection.predicate ?? { op: 'all' }, visibility);
  const parts = [matching.sql];
  const params = [...matching.params];
  if (selection.uniqueIds !== undefined) {
    parts.push(selection.uniqueIds.length === 0 ? '0' : `a.unique_id IN (${selection.uniqueIds.map(() => '?').join(', ')})`);
    params.push(...selection.uniqueIds);
  }
  if (selection.page) {
    const { sort, start, rows } = selection.page;
    return {
      sql: `a.id IN (SELECT a.id FROM ${FROM} WHERE ${parts.join(' AND ')} ORDER BY ${orderBy(query, sort)} LIMIT ? OFFSET ?)`,
      params: [...params, rows, start],
    };
  }
  return { sql: parts.join(' AND '), params };
}

function orderBy(query: AlertQueryDialect, sort: readonly SortKey[]): string {
  const keys = sort.map((key) => {
    const column = columnOf(query.sorts, key.field);
    if (!column) throw new Error(`Alerts cannot sort by ${key.field}`);
    return `${column} ${key.descending ? 'DESC' : 'ASC'}`;
  });
  return [...keys, `a.id ${sort[0]?.descending ? 'DESC' : 'ASC'}`].join(', ');
}

/** The expression a requested field reads; undefined for a field the dialect does not list. */
function columnOf(columns: Readonly<Record<string, string>>, field: string): string | undefined {
  return Object.hasOwn(columns, field) ? columns[field] : undefined;
}
