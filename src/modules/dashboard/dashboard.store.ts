/**
 * The counts behind the dashboard, each over the sensor groups a caller may see (null: all).
 * Written once against SqlDatabase; dashboard.store.contract.ts is the contract every dialect
 * must pass. Every count reads an index or a small table: documents from the per-host segment
 * counts (mounted partitions only), processes from the group index, recent hits from the hit-time
 * indexes.
 */
import type { SqlDatabase, SqlValue } from '../../db/database.js';

export interface StoreCounts {
  /** Processes stored. */
  processes: number;
  /** Process documents (segments) in mounted partitions. */
  documents: number;
  binaries: number;
  /** Binaries the server first saw at or after `sinceMs` of the window asked for. */
  newBinaries: number;
  /** Alerts by triage status. */
  alerts: Record<string, number>;
  /** Watchlist hits (process and binary documents tagged) at or after each of the given times, in their order. */
  watchlistHits: number[];
}

export interface DashboardStore {
  /**
   * Counts within `groups` (null: every group). A binary counts when a sensor of those groups saw
   * it; a binary hit when its binary does; a process hit when its process ran there.
   */
  counts(groups: readonly number[] | null, newBinariesSinceMs: number, hitsSinceMs: readonly number[]): Promise<StoreCounts>;
}

export class SqlDashboardStore implements DashboardStore {
  constructor(private readonly db: SqlDatabase) {}

  async counts(groups: readonly number[] | null, newBinariesSinceMs: number, hitsSinceMs: readonly number[]): Promise<StoreCounts> {
    // An empty scope still needs a list SQL accepts: no group has id 0.
    const scope = groups === null ? null : groups.length > 0 ? groups : [0];
    const list = scope?.map(() => '?').join(', ');
    const inScope = (column: string) => (scope === null ? '1 = 1' : `${column} IN (${list})`);
    const params = (...values: SqlValue[]): SqlValue[] => (scope === null ? values : [...values, ...scope]);
    const binarySeen = (md5: string) => (scope === null
      ? '1 = 1'
      : `EXISTS (SELECT 1 FROM binary_observations o JOIN sensors s ON s.id = o.sensor_id WHERE o.md5 = ${md5} AND s.group_id IN (${list}))`);
    const oldest = Math.min(...hitsSinceMs);
    const windows = hitsSinceMs.map((_, i) => `sum(CASE WHEN h.hit_ms >= ? THEN 1 ELSE 0 END) AS w${i}`).join(', ');
    const [processes, documents, binaries, alerts, processHits, binaryHits] = await Promise.all([
      this.db.get<{ n: number }>(`SELECT count(*) AS n FROM processes WHERE ${inScope('group_id')}`, params()),
      this.db.get<{ n: number | null }>(`SELECT sum(segments) AS n FROM host_segment_counts WHERE ${inScope('group_id')}`, params()),
      this.db.get<{ total: number; fresh: number | null }>(
        `SELECT count(*) AS total, sum(CASE WHEN first_seen_ms >= ? THEN 1 ELSE 0 END) AS fresh FROM binaries b WHERE ${binarySeen('b.md5')}`, params(newBinariesSinceMs),
      ),
      this.db.all<{ status: string; n: number }>(
        `SELECT t.status, count(*) AS n FROM alerts a JOIN alert_triage t ON t.alert_id = a.id WHERE ${inScope('a.group_id')} GROUP BY t.status`, params(),
      ),
      this.db.get<Record<string, number | null>>(
        `SELECT ${windows} FROM watchlist_process_hits h
         ${scope === null ? '' : 'JOIN segments s ON s.id = h.segment_row JOIN processes p ON p.id = s.process_id'}
         WHERE h.hit_ms >= ? AND ${inScope('p.group_id')}`,
        params(...hitsSinceMs, oldest),
      ),
      this.db.get<Record<string, number | null>>(
        `SELECT ${windows} FROM watchlist_binary_hits h WHERE h.hit_ms >= ? AND ${binarySeen('h.md5')}`,
        params(...hitsSinceMs, oldest),
      ),
    ]);
    return {
      processes: processes?.n ?? 0,
      documents: documents?.n ?? 0,
      binaries: binaries?.total ?? 0,
      newBinaries: binaries?.fresh ?? 0,
      alerts: Object.fromEntries(alerts.map((row) => [row.status, row.n])),
      watchlistHits: hitsSinceMs.map((_, i) => (processHits?.[`w${i}`] ?? 0) + (binaryHits?.[`w${i}`] ?? 0)),
    };
  }
}
