/**
 * What an analyst's update does to a sensor. Isolation, restart and uninstall are carried out by
 * the sensor at its next check-in, so each becomes an instruction (docs/sensor-protocol.md): the
 * record shows the request at once (network_isolation_enabled, restart_queued, uninstall) and the
 * outcome only when the sensor reports it (is_isolating, uninstalled), as in Carbon Black's
 * isolation phases (reference core §6.4). The newest request wins: it withdraws any contrary
 * instruction still pending, so a sensor never receives isolate and unisolate at once.
 */
import { ConflictError, InvalidRequestError } from '../../domain/errors.js';
import { parseClientTime } from '../../domain/record-time.js';
import type { SensorUpdateBody } from './sensors.schemas.js';
import type { SensorChanges, SensorRecord, SensorUpdate } from './sensors.store.js';

export interface SensorRequest {
  networkIsolationEnabled?: boolean | undefined;
  restartQueued?: boolean | undefined;
  uninstall?: boolean | undefined;
  groupId?: number | undefined;
  notes?: string | null | undefined;
  eventLogFlushMs?: number | null | undefined;
}

export function planUpdate(current: SensorRecord, request: SensorRequest): SensorUpdate {
  if (current.agent === 'sysmon') refuseInstructions(current, request);
  const changes: SensorChanges = { groupId: request.groupId, notes: request.notes, eventLogFlushMs: request.eventLogFlushMs };
  const withdraw: string[] = [];
  const enqueue: string[] = [];

  const isolate = request.networkIsolationEnabled;
  // Sent again while the sensor's report differs from the request, whether it is still pending
  // or the sensor failed to apply it: the fresh instruction replaces the pending one.
  if (isolate !== undefined && (isolate !== current.networkIsolationEnabled || isolate !== current.isIsolating)) {
    changes.networkIsolationEnabled = isolate;
    withdraw.push('isolate', 'unisolate');
    enqueue.push(isolate ? 'isolate' : 'unisolate');
  }

  if (request.restartQueued !== undefined && request.restartQueued !== current.restartQueued) {
    changes.restartQueued = request.restartQueued;
    (request.restartQueued ? enqueue : withdraw).push('restart');
  }

  if (request.uninstall !== undefined && request.uninstall !== current.uninstall) {
    if (current.uninstalledMs !== null) {
      throw new ConflictError(`Sensor ${current.id} is already uninstalled; a reinstalled sensor registers as a new one`);
    }
    changes.uninstall = request.uninstall;
    (request.uninstall ? enqueue : withdraw).push('uninstall');
  }

  return { changes, withdraw, enqueue };
}

/**
 * A Sysmon host only sends events: asking it to isolate, restart or uninstall is refused at once
 * (cbapi's isolate() then fails instead of waiting for an isolation that never comes).
 */
function refuseInstructions(current: SensorRecord, request: SensorRequest): void {
  const asked = [
    request.networkIsolationEnabled === true && !current.networkIsolationEnabled && 'isolate it',
    request.restartQueued === true && 'restart it',
    request.uninstall === true && 'uninstall it',
  ].filter(Boolean);
  if (asked.length > 0) {
    throw new ConflictError(`Sensor ${current.id} is a Sysmon host, which only sends events: Vigil cannot ${asked.join(' or ')}`);
  }
}

/** The request a PUT body makes; the group move is checked by the service first. */
export function requestOf(body: SensorUpdateBody): SensorRequest {
  const flush = body.event_log_flush_time;
  const eventLogFlushMs = flush === undefined || flush === null ? flush : parseClientTime(flush);
  if (eventLogFlushMs === undefined && typeof flush === 'string') {
    throw new InvalidRequestError(`event_log_flush_time: not a time: ${JSON.stringify(flush)}`);
  }
  return {
    networkIsolationEnabled: body.network_isolation_enabled,
    restartQueued: body.restart_queued,
    uninstall: body.uninstall,
    notes: body.notes,
    eventLogFlushMs,
  };
}
