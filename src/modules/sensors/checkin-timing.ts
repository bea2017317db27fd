/**
 * Which check-ins are answered before their row is written (ADR 0037): those that change nothing
 * anyone must see at once. A sensor's steady heartbeat (online, checked in before, nothing to
 * acknowledge, isolation as recorded) only moves its last-seen time and its host facts; another
 * server or a forwarder seeing that some milliseconds later changes nothing they show. Every other
 * check-in (the first, one that ends an offline spell, confirms or ends isolation, acknowledges
 * instructions, or comes from an uninstalled sensor) is answered only once committed, so the state
 * history (ADR 0032) and what a second server reads right after it (ADR 0022) stay as they were.
 */
import type { CheckinBody } from './sensor-protocol.schemas.js';
import { sensorStatus } from './sensor-record.js';
import type { SensorRecord } from './sensors.store.js';

export function isPlainHeartbeat(before: SensorRecord, body: CheckinBody, nowMs: number, checkinIntervalSeconds: number): boolean {
  if (before.lastCheckinMs === null || (body.completed?.length ?? 0) > 0) return false;
  if (body.is_isolating !== undefined && body.is_isolating !== before.isIsolating) return false;
  // Also false once uninstalled, and once offline: this check-in then writes the offline spell's end.
  return sensorStatus(before, nowMs, checkinIntervalSeconds) === 'Online';
}
