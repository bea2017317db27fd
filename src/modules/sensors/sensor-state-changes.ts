/**
 * The history of sensors' states that the event forwarder sends (docs/forwarder.md): each change
 * is written in the transaction of the write that makes it, at that write's server time.
 * Going offline is the exception: no write happens then, so the forwarder reads it from the
 * sensor's last check-in (offlineFromSql), and the check-in that ends it writes it here at the
 * time it began, with the same key, so that a forwarder that had not reached it yet still sends it.
 */
import type { SqlExecutor } from '../../db/database.js';
import { OFFLINE_AFTER_INTERVALS } from './sensor-record.js';

export type SensorStateChange =
  | 'sensor.status.registered' | 'sensor.status.online' | 'sensor.status.offline' | 'sensor.status.uninstalled'
  | 'sensor.isolation.requested' | 'sensor.isolation.released' | 'sensor.isolation.confirmed' | 'sensor.isolation.ended'
  | 'sensor.uninstall.requested';

export function recordStateChange(db: SqlExecutor, sensorId: number, state: SensorStateChange, changedMs: number): Promise<unknown> {
  return db.run('INSERT INTO sensor_state_changes (sensor_id, changed_ms, state) VALUES (?, ?, ?)', [sensorId, changedMs, state]);
}

/**
 * When a sensor turns Offline unless it checks in before (sensorStatus's rule, sensor-record.ts):
 * three of its intervals after it was last seen, `intervalMs` for one that never checked in.
 */
export function offlineFromSql(intervalMs: number): string {
  return `COALESCE(last_checkin_ms, registration_ms) + ${OFFLINE_AFTER_INTERVALS} * COALESCE(next_checkin_ms - last_checkin_ms, ${Math.trunc(intervalMs)}) + 1`;
}

export interface StateBeforeCheckin {
  last_checkin_ms: number | null;
  next_checkin_ms: number | null;
  registration_ms: number;
  is_isolating: number | boolean;
  uninstalled_ms: number | null;
}

/**
 * The changes a check-in at `nowMs` ends or reports: back online after being offline (the
 * offline spell kept too), and isolation taking effect or ending on the host. A sensor that never
 * checked in is counted with the interval this check-in is given, the configured one.
 */
export async function recordCheckinChanges(
  db: SqlExecutor, sensorId: number, before: StateBeforeCheckin, nowMs: number, nextCheckinMs: number, isIsolating: boolean | undefined,
): Promise<void> {
  if (before.uninstalled_ms === null) {
    const lastSeenMs = Number(before.last_checkin_ms ?? before.registration_ms);
    const intervalMs = before.last_checkin_ms !== null && before.next_checkin_ms !== null
      ? Number(before.next_checkin_ms) - Number(before.last_checkin_ms)
      : nextCheckinMs - nowMs;
    const offlineMs = lastSeenMs + OFFLINE_AFTER_INTERVALS * intervalMs + 1;
    if (nowMs >= offlineMs) {
      await recordStateChange(db, sensorId, 'sensor.status.offline', offlineMs);
      await recordStateChange(db, sensorId, 'sensor.status.online', nowMs);
    }
  }
  if (isIsolating !== undefined && isIsolating !== Boolean(before.is_isolating)) {
    await recordStateChange(db, sensorId, isIsolating ? 'sensor.isolation.confirmed' : 'sensor.isolation.ended', nowMs);
  }
}
