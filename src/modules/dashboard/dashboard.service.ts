/**
 * The dashboard's statistics (dashboard.schemas.ts says why these keys), computed from the store
 * at each request. Every count covers only the sensor groups the caller may view, as the lists
 * behind them do.
 */
import { canViewGroup, type Principal } from '../../domain/permissions.js';
import { formatRecordTime } from '../../domain/record-time.js';
import type { Sensor } from '../sensors/sensors.schemas.js';
import type { DashboardStatistics } from './dashboard.schemas.js';
import type { DashboardStore } from './dashboard.store.js';

/** The sensors a caller may see, with their status (the sensors service). */
export interface VisibleSensors {
  list(actor: Principal, query: Record<string, never>): Promise<Pick<Sensor, 'os_type' | 'status' | 'is_isolating'>[]>;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The sensor record's os_type codes. */
const OS_KEYS: Record<number, keyof DashboardStatistics['sensors']['by_os']> = { 1: 'windows', 2: 'osx', 3: 'linux' };

export class DashboardService {
  constructor(
    private readonly sensors: VisibleSensors,
    private readonly store: DashboardStore,
    private readonly now: () => number = Date.now,
  ) {}

  async statistics(actor: Principal): Promise<DashboardStatistics> {
    const now = this.now();
    const groups = actor.globalAdmin ? null : [...actor.groupAccess.keys()].filter((group) => canViewGroup(actor, group));
    const [sensors, counts] = await Promise.all([
      this.sensors.list(actor, {}),
      this.store.counts({ groups, newBinariesSinceMs: now - DAY_MS, hitsSinceMs: [now - HOUR_MS, now - DAY_MS, now - 7 * DAY_MS] }),
    ]);
    const by_os = { windows: 0, osx: 0, linux: 0 };
    for (const sensor of sensors) {
      const os = OS_KEYS[sensor.os_type];
      if (os) by_os[os]++;
    }
    const withStatus = (status: Sensor['status']) => sensors.filter((sensor) => sensor.status === status).length;
    const alerts = (status: string) => counts.alerts[status] ?? 0;
    const [lastHour, lastDay, lastWeek] = counts.watchlistHits;
    return {
      sensors: {
        total: sensors.length,
        online: withStatus('Online'),
        offline: withStatus('Offline'),
        uninstalled: withStatus('Uninstalled'),
        isolated: sensors.filter((sensor) => sensor.is_isolating).length,
        by_os,
      },
      processes: { total: counts.processes, documents: counts.documents },
      binaries: { total: counts.binaries, new_last_24_hours: counts.newBinaries },
      alerts: {
        total: Object.values(counts.alerts).reduce((sum, n) => sum + n, 0),
        unresolved: alerts('Unresolved'),
        in_progress: alerts('In Progress'),
        resolved: alerts('Resolved'),
        false_positive: alerts('False Positive'),
      },
      watchlist_hits: { last_hour: lastHour ?? 0, last_24_hours: lastDay ?? 0, last_7_days: lastWeek ?? 0 },
      generated_at: formatRecordTime(now),
    };
  }
}
