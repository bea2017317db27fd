/**
 * A sensor as the analyst API shows it: Carbon Black's record (reference core §6.2), with numbers
 * as text where Carbon Black sent text, and the status derived from check-in age.
 */
import { formatRecordTime } from '../../domain/record-time.js';
import type { OsType } from '../../domain/sensor-identity.js';
import type { Sensor } from './sensors.schemas.js';
import type { SensorRecord } from './sensors.store.js';

/**
 * A sensor is Offline once this many check-in intervals pass without a check-in: one missed
 * check-in is a hiccup (a restart, a slow network), three mean the host is off or cut off.
 */
export const OFFLINE_AFTER_INTERVALS = 3;

const OS_TYPE_CODES: Record<OsType, number> = { windows: 1, osx: 2, linux: 3 };

/** Carbon Black showed sensors without a license of their own as expiring at this date (server-local midnight). */
const NO_LICENSE_EXPIRATION = new Date(1990, 0, 1).getTime();

/**
 * Online while the last check-in is younger than three intervals, the interval being the one the
 * server gave the sensor at that check-in (or, before the first, the configured one counted from
 * registration); Uninstalled once the sensor confirmed an uninstall.
 */
export function sensorStatus(sensor: SensorRecord, nowMs: number, checkinIntervalSeconds: number): Sensor['status'] {
  if (sensor.uninstalledMs !== null) return 'Uninstalled';
  const intervalMs = sensor.lastCheckinMs !== null && sensor.nextCheckinMs !== null
    ? sensor.nextCheckinMs - sensor.lastCheckinMs
    : checkinIntervalSeconds * 1000;
  const lastSeenMs = sensor.lastCheckinMs ?? sensor.registrationMs;
  return nowMs - lastSeenMs <= OFFLINE_AFTER_INTERVALS * intervalMs ? 'Online' : 'Offline';
}

export function toWire(sensor: SensorRecord, nowMs: number, checkinIntervalSeconds: number): Sensor {
  const lastSeenMs = sensor.lastCheckinMs ?? sensor.registrationMs;
  return {
    id: sensor.id,
    group_id: sensor.groupId,
    computer_name: sensor.computerName,
    computer_dns_name: sensor.computerDnsName,
    computer_sid: sensor.computerSid,
    os_environment_display_string: sensor.osEnvironmentDisplayString,
    // Carbon Black numbered OS environments in a table of its own; Vigil keeps none.
    os_environment_id: 0,
    os_type: OS_TYPE_CODES[sensor.osType],
    build_id: sensor.buildId,
    build_version_string: sensor.buildVersionString,
    boot_id: sensor.bootId,
    network_adapters: sensor.networkAdapters,
    physical_memory_size: String(sensor.physicalMemorySize),
    systemvolume_total_size: String(sensor.systemvolumeTotalSize),
    systemvolume_free_size: String(sensor.systemvolumeFreeSize),
    uptime: String(sensor.uptime),
    sensor_uptime: String(sensor.sensorUptime),
    clock_delta: String(Math.round(sensor.clockDeltaMs / 1000)),
    status: sensorStatus(sensor, nowMs, checkinIntervalSeconds),
    sensor_health_status: sensor.healthStatus,
    sensor_health_message: sensor.healthMessage,
    registration_time: formatRecordTime(sensor.registrationMs),
    last_checkin_time: formatRecordTime(lastSeenMs),
    next_checkin_time: formatRecordTime(sensor.nextCheckinMs ?? sensor.registrationMs + checkinIntervalSeconds * 1000),
    last_update: formatRecordTime(lastSeenMs),
    network_isolation_enabled: sensor.networkIsolationEnabled,
    is_isolating: sensor.isIsolating,
    restart_queued: sensor.restartQueued,
    uninstall: sensor.uninstall,
    uninstalled: sensor.uninstalledMs === null ? null : true,
    notes: sensor.notes,
    event_log_flush_time: sensor.eventLogFlushMs === null ? null : formatRecordTime(sensor.eventLogFlushMs),
    // Vigil sensors stream their events and report no backlog.
    num_eventlog_bytes: '0',
    num_storefiles_bytes: '0',
    // A Sysmon host has no agent to carry either out.
    supports_cblr: sensor.agent === 'vigil',
    supports_isolation: sensor.agent === 'vigil',
    supports_2nd_gen_modloads: false,
    license_expiration: formatRecordTime(NO_LICENSE_EXPIRATION),
    parity_host_id: '0',
    power_state: 0,
    node_id: 0,
    shard_id: 0,
    cookie: 0,
    display: true,
    emet_version: '',
    emet_telemetry_path: '',
    emet_dump_flags: '',
    emet_report_setting: '',
    emet_exploit_action: '',
    emet_process_count: 0,
    emet_is_gpo: false,
  };
}
