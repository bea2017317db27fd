/**
 * What the forwarder reads: each source walks one table in the order of a key that starts with a
 * server time (alerts by created_ms and id, hits by hit_ms, binaries by first_seen_ms and md5, raw
 * events by the time their chunk was written and its segment row and number). A cursor is the key
 * of the last record delivered; a read returns the records after it, oldest first.
 *
 * Why a time and a horizon rather than an id: on PostgreSQL ids and times are taken before a
 * transaction commits, so a record with a smaller key can become visible after a larger one was
 * read. A read therefore stops at `untilMs` (now less the commit horizon): a transaction that
 * commits within the horizon of taking its time is never skipped (docs/adr/0024-forwarder-cursors.md).
 */
import type { SqlDatabase, SqlValue } from '../../db/database.js';
import type { ForwardRecord, Forwardable } from './forwarder-format.js';
import type { RecordOrigin } from './forwarder-records.js';
import {
  alertRecord, binaryRecord, feedHitRecord, sensorStateRecord, watchlistHitRecord,
  type AlertRow, type BinaryRow, type ProcessHitRow, type SensorStateRow,
} from './forwarder-records.js';
import { offlineFromSql } from '../sensors/sensor-state-changes.js';

/** A key: a server time (ms) first, then what orders records of the same millisecond. */
export type Position = readonly (number | string)[];

export interface SourceBatch<R extends Forwardable = Forwardable> {
  records: R[];
  /** The key of the last record read: the cursor once the batch is delivered. */
  last: Position;
}

export interface ForwardSource<R extends Forwardable = Forwardable> {
  /** Where a new cursor starts: records after `fromMs` (the output's creation). */
  start(fromMs: number): Position;
  /** Up to about `limit` records after `after` whose time is at most `untilMs`; undefined when none. */
  read(after: Position, untilMs: number, limit: number): Promise<SourceBatch<R> | undefined>;
  /** The time of the newest record, for the lag an output's status shows. */
  newestMs(): Promise<number | null>;
}

export const SOURCE_NAMES = ['alert', 'watchlist.hit.process', 'feed.ingress.hit.process', 'binaryinfo.observed', 'sensor.status', 'raw'] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];

interface KeyedSql<Row> {
  /** The key columns, time first, as the query names them. */
  key: readonly string[];
  /** The first value after which any key comes (keys of the start millisecond included). */
  low: readonly (number | string)[];
  select: string;
  timeColumn: string;
  newest: string;
  record(row: Row, origin: RecordOrigin): ForwardRecord;
}

/** A source over one SQL query, the same on both databases but for the process joins. */
export class KeyedSqlSource<Row extends object> implements ForwardSource<ForwardRecord> {
  constructor(private readonly db: SqlDatabase, private readonly spec: KeyedSql<Row>, private readonly origin: RecordOrigin) {}

  start(fromMs: number): Position {
    return [fromMs, ...this.spec.low];
  }

  async read(after: Position, untilMs: number, limit: number): Promise<SourceBatch<ForwardRecord> | undefined> {
    const { key, select, timeColumn } = this.spec;
    const tuple = `(${key.join(', ')})`;
    const rows = await this.db.all<Row>(
      `${select} WHERE ${tuple} > (${key.map(() => '?').join(', ')}) AND ${timeColumn} <= ? ORDER BY ${key.join(', ')} LIMIT ?`,
      [...(after as SqlValue[]), untilMs, limit],
    );
    if (rows.length === 0) return undefined;
    const lastRow = rows.at(-1)!;
    const names = key.map((column) => column.slice(column.indexOf('.') + 1));
    return { records: rows.map((row) => this.spec.record(row, this.origin)), last: names.map((name) => (lastRow as Record<string, unknown>)[name] as number | string) };
  }

  async newestMs(): Promise<number | null> {
    const row = await this.db.get<{ newest: number | null }>(this.spec.newest);
    return row?.newest === null || row?.newest === undefined ? null : Number(row.newest);
  }
}

const PROCESS_COLUMNS = `s.segment_id, s.last_update_ms, s.modload_count, s.filemod_count, s.regmod_count, s.netconn_count,
  s.childproc_count, s.crossproc_count, p.sensor_id, p.pid, p.start_ms, p.hostname, p.host_type, p.os_type, p.path,
  p.process_name, p.cmdline, p.username, p.md5, p.parent_pid, p.parent_name, p.parent_md5, g.name AS group_name`;

/**
 * Joins a hit's segment to its process. Segment rows are unique on both databases; PostgreSQL's
 * process rows are keyed by sensor too (a hit's own sensor_id there is not always filled in).
 */
function processJoins(db: SqlDatabase): string {
  const bySensor = db.dialect === 'postgres';
  return `JOIN segments s ON s.id = h.segment_row
    JOIN processes p ON p.id = s.process_id${bySensor ? ' AND p.sensor_id = s.sensor_id' : ''}
    LEFT JOIN sensor_groups g ON g.id = p.group_id`;
}

/**
 * `checkinIntervalMs` is the configured check-in interval: a sensor that never checked in turns
 * offline three of them after it registered.
 */
export function sqlSources(db: SqlDatabase, origin: RecordOrigin, checkinIntervalMs: number): Omit<Record<SourceName, ForwardSource<ForwardRecord>>, 'raw'> {
  return {
    alert: new KeyedSqlSource<AlertRow>(db, {
      key: ['a.created_ms', 'a.id'], low: [-1], timeColumn: 'a.created_ms',
      select: 'SELECT a.*, t.status FROM alerts a LEFT JOIN alert_triage t ON t.alert_id = a.id',
      newest: 'SELECT MAX(created_ms) AS newest FROM alerts',
      record: alertRecord,
    }, origin),
    'watchlist.hit.process': new KeyedSqlSource<ProcessHitRow & { watchlist_id: number; watchlist_name: string }>(db, {
      key: ['h.hit_ms', 'h.watchlist_id', 'h.segment_row'], low: [-1, -1], timeColumn: 'h.hit_ms',
      select: `SELECT h.hit_ms, h.watchlist_id, h.segment_row, w.name AS watchlist_name, ${PROCESS_COLUMNS}
        FROM watchlist_process_hits h JOIN watchlists w ON w.id = h.watchlist_id ${processJoins(db)}`,
      newest: 'SELECT MAX(hit_ms) AS newest FROM watchlist_process_hits',
      record: watchlistHitRecord,
    }, origin),
    'feed.ingress.hit.process': new KeyedSqlSource<ProcessHitRow & { feed_id: number; feed_name: string; report_id: string; report_score: number }>(db, {
      key: ['h.hit_ms', 'h.report_row', 'h.segment_row'], low: [-1, -1], timeColumn: 'h.hit_ms',
      select: `SELECT h.hit_ms, h.report_row, h.segment_row, r.feed_id, f.name AS feed_name, r.report_id, r.score AS report_score,
        ${PROCESS_COLUMNS}
        FROM feed_process_hits h JOIN threat_reports r ON r.id = h.report_row JOIN feeds f ON f.id = r.feed_id ${processJoins(db)}`,
      newest: 'SELECT MAX(hit_ms) AS newest FROM feed_process_hits',
      record: feedHitRecord,
    }, origin),
    'binaryinfo.observed': new KeyedSqlSource<BinaryRow>(db, {
      key: ['b.first_seen_ms', 'b.md5'], low: [''], timeColumn: 'b.first_seen_ms',
      select: 'SELECT b.md5, b.sha256, b.size, b.first_seen_ms, b.metadata FROM binaries b',
      newest: 'SELECT MAX(first_seen_ms) AS newest FROM binaries',
      record: binaryRecord,
    }, origin),
    // The recorded changes, and each sensor's going offline as its last check-in makes it due
    // (sensor-state-changes.ts); one not yet due lies past the horizon.
    'sensor.status': new KeyedSqlSource<SensorStateRow>(db, {
      key: ['c.changed_ms', 'c.sensor_id', 'c.state'], low: [-1, ''], timeColumn: 'c.changed_ms',
      select: `SELECT c.changed_ms, c.sensor_id, c.state, s.computer_name, s.computer_dns_name, s.os_type, g.name AS group_name
        FROM (SELECT changed_ms, sensor_id, state FROM sensor_state_changes
          UNION ALL SELECT ${offlineFromSql(checkinIntervalMs)}, id, 'sensor.status.offline' FROM sensors WHERE uninstalled_ms IS NULL) c
        JOIN sensors s ON s.id = c.sensor_id LEFT JOIN sensor_groups g ON g.id = s.group_id`,
      newest: 'SELECT MAX(changed_ms) AS newest FROM sensor_state_changes',
      record: sensorStateRecord,
    }, origin),
  };
}
