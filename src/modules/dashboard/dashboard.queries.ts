/**
 * The SQL behind the dashboard's counts, shared by the store on a SqlDatabase (dashboard.store.ts)
 * and the read-pool handler (dashboard.sqlite.ts): a list of statements, and how their rows make
 * the counts. Every count reads an index or a small table: documents from the per-host segment
 * counts (mounted partitions only), processes by the group index, recent hits by the hit-time
 * indexes; the unscoped alert counts read the narrow triage table alone.
 */
import type { SqlValue } from '../../db/database.js';

export interface CountsRequest {
  /** The sensor groups to count in; null: all. */
  groups: readonly number[] | null;
  /** A binary is new when the server first saw it at or after this time. */
  newBinariesSinceMs: number;
  /** Watchlist hits are counted from each of these times. */
  hitsSinceMs: readonly number[];
}

export interface StoreCounts {
  /** Processes stored. */
  processes: number;
  /** Process documents (segments) in mounted partitions. */
  documents: number;
  binaries: number;
  newBinaries: number;
  /** Alerts by triage status. */
  alerts: Record<string, number>;
  /** Watchlist hits (process and binary documents tagged) from each of the request's times, in its order. */
  watchlistHits: number[];
}

export interface Statement {
  sql: string;
  params: SqlValue[];
}

type Row = Record<string, number | string | null>;

/** The statements, in the order countsOf expects their rows. */
export function countStatements({ groups, newBinariesSinceMs, hitsSinceMs }: CountsRequest): Statement[] {
  // An empty scope still needs a list SQL accepts: no group has id 0.
  const scope = groups === null ? null : groups.length > 0 ? [...groups] : [0];
  const list = scope?.map(() => '?').join(', ');
  const inScope = (column: string) => (scope === null ? '1 = 1' : `${column} IN (${list})`);
  const params = (...values: SqlValue[]): SqlValue[] => (scope === null ? values : [...values, ...scope]);
  const binarySeen = (md5: string) => (scope === null
    ? '1 = 1'
    : `EXISTS (SELECT 1 FROM binary_observations o JOIN sensors s ON s.id = o.sensor_id WHERE o.md5 = ${md5} AND s.group_id IN (${list}))`);
  const oldest = Math.min(...hitsSinceMs);
  const windows = hitsSinceMs.map((_, i) => `sum(CASE WHEN h.hit_ms >= ? THEN 1 ELSE 0 END) AS w${i}`).join(', ');
  return [
    { sql: `SELECT count(*) AS n FROM processes WHERE ${inScope('group_id')}`, params: params() },
    { sql: `SELECT sum(segments) AS n FROM host_segment_counts WHERE ${inScope('group_id')}`, params: params() },
    {
      sql: `SELECT count(*) AS total, sum(CASE WHEN first_seen_ms >= ? THEN 1 ELSE 0 END) AS fresh FROM binaries b WHERE ${binarySeen('b.md5')}`,
      params: params(newBinariesSinceMs),
    },
    scope === null
      ? { sql: 'SELECT status, count(*) AS n FROM alert_triage GROUP BY status', params: [] }
      : {
        sql: `SELECT t.status, count(*) AS n FROM alerts a JOIN alert_triage t ON t.alert_id = a.id WHERE ${inScope('a.group_id')} GROUP BY t.status`,
        params: params(),
      },
    {
      // CROSS JOIN keeps SQLite reading the hits in the window first (by time), not every process of the groups.
      sql: `SELECT ${windows} FROM watchlist_process_hits h ${scope === null ? '' : 'CROSS JOIN segments s CROSS JOIN processes p'}
            WHERE h.hit_ms >= ? AND ${scope === null ? '1 = 1' : `s.id = h.segment_row AND p.id = s.process_id AND ${inScope('p.group_id')}`}`,
      params: params(...hitsSinceMs, oldest),
    },
    {
      sql: `SELECT ${windows} FROM watchlist_binary_hits h WHERE h.hit_ms >= ? AND ${binarySeen('h.md5')}`,
      params: params(...hitsSinceMs, oldest),
    },
  ];
}

/** The counts from the rows of each of countStatements' statements. */
export function countsOf(request: CountsRequest, [processes, documents, binaries, alerts, processHits, binaryHits]: Row[][]): StoreCounts {
  const number = (rows: Row[] | undefined, column: string) => Number(rows?.[0]?.[column] ?? 0);
  return {
    processes: number(processes, 'n'),
    documents: number(documents, 'n'),
    binaries: number(binaries, 'total'),
    newBinaries: number(binaries, 'fresh'),
    alerts: Object.fromEntries((alerts ?? []).map((row) => [String(row.status), Number(row.n)])),
    watchlistHits: request.hitsSinceMs.map((_, i) => number(processHits, `w${i}`) + number(binaryHits, `w${i}`)),
  };
}
