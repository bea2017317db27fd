/** The SQL side of SqlSensorsStore: how a sensors row maps to a SensorRecord, filters, sorts. */
import type { SqlValue } from '../../db/database.js';
import type { HostType, OsType } from '../../domain/sensor-identity.js';
import type { CheckinFacts, SensorChanges, SensorFilter, SensorRecord, SensorSort } from './sensors.store.js';

export interface SensorRow {
  id: number;
  group_id: number;
  secret_hash: string;
  os_type: OsType;
  host_type: HostType;
  computer_name: string;
  computer_dns_name: string;
  computer_sid: string;
  os_environment_display_string: string;
  build_version_string: string;
  build_id: number;
  boot_id: string;
  network_adapters: string;
  physical_memory_size: number;
  systemvolume_total_size: number;
  systemvolume_free_size: number;
  uptime: number;
  sensor_uptime: number;
  clock_delta_ms: number;
  health_status: number;
  health_message: string;
  is_isolating: number | boolean;
  network_isolation_enabled: number | boolean;
  restart_queued: number | boolean;
  uninstall: number | boolean;
  notes: string | null;
  registration_ms: number;
  last_checkin_ms: number | null;
  next_checkin_ms: number | null;
  last_sequence: number;
  event_log_flush_ms: number | null;
  uninstalled_ms: number | null;
  agent: string;
}

export const CHECKIN_COLUMNS: Record<keyof Omit<CheckinFacts, 'lastCheckinMs' | 'nextCheckinMs' | 'clockDeltaMs'>, string> = {
  computerName: 'computer_name',
  computerDnsName: 'computer_dns_name',
  computerSid: 'computer_sid',
  osEnvironmentDisplayString: 'os_environment_display_string',
  buildVersionString: 'build_version_string',
  buildId: 'build_id',
  bootId: 'boot_id',
  networkAdapters: 'network_adapters',
  physicalMemorySize: 'physical_memory_size',
  systemvolumeTotalSize: 'systemvolume_total_size',
  systemvolumeFreeSize: 'systemvolume_free_size',
  uptime: 'uptime',
  sensorUptime: 'sensor_uptime',
  healthStatus: 'health_status',
  healthMessage: 'health_message',
  isIsolating: 'is_isolating',
};

export const CHANGE_COLUMNS: Record<keyof SensorChanges, string> = {
  groupId: 'group_id',
  notes: 'notes',
  networkIsolationEnabled: 'network_isolation_enabled',
  restartQueued: 'restart_queued',
  uninstall: 'uninstall',
  eventLogFlushMs: 'event_log_flush_ms',
};

/**
 * A sensors row with its last upload sequence, which the event writer keeps in a table of its own
 * (migration 25, PostgreSQL 10): a sensor with no events yet has none there.
 */
export const SENSOR_ROWS =
  'SELECT sensors.*, COALESCE((SELECT last_sequence FROM sensor_sequences WHERE sensor_id = sensors.id), 0) AS last_sequence FROM sensors';

/** The expression each sort orders by; a sensor that never checked in counts from its registration. */
export const SORT_EXPRESSIONS: Record<SensorSort, string> = {
  id: 'id',
  computerName: 'computer_name',
  computerDnsName: 'computer_dns_name',
  groupId: 'group_id',
  osEnvironment: 'os_environment_display_string',
  buildVersion: 'build_version_string',
  registration: 'registration_ms',
  lastCheckin: 'COALESCE(last_checkin_ms, registration_ms)',
};

/** The ip_addresses column: the addresses of "<ip>,<mac>|…" as "|ip|ip|", so a substring never spans two. */
export function ipAddressesOf(networkAdapters: string): string {
  const ips = networkAdapters.split('|').filter(Boolean).map((adapter) => adapter.split(',')[0]);
  return ips.length ? `|${ips.join('|')}|` : '';
}

/**
 * A number the sensor reported, as stored. A database written before requests' numbers were bounded
 * may hold Infinity (stored as a REAL) or text in these columns; one such sensor must not make
 * every list of sensors fail to serialize, so what is not a safe integer reads as 0.
 */
function reported(value: unknown): number {
  return Number.isSafeInteger(value) ? (value as number) : 0;
}

export function toRecord(row: SensorRow): SensorRecord {
  return {
    id: row.id,
    groupId: row.group_id,
    secretHash: row.secret_hash,
    osType: row.os_type,
    hostType: row.host_type,
    computerName: row.computer_name,
    computerDnsName: row.computer_dns_name,
    computerSid: row.computer_sid,
    osEnvironmentDisplayString: row.os_environment_display_string,
    buildVersionString: row.build_version_string,
    buildId: reported(row.build_id),
    bootId: row.boot_id,
    networkAdapters: row.network_adapters,
    physicalMemorySize: reported(row.physical_memory_size),
    systemvolumeTotalSize: reported(row.systemvolume_total_size),
    systemvolumeFreeSize: reported(row.systemvolume_free_size),
    uptime: reported(row.uptime),
    sensorUptime: reported(row.sensor_uptime),
    clockDeltaMs: reported(row.clock_delta_ms),
    healthStatus: reported(row.health_status),
    healthMessage: row.health_message,
    isIsolating: Boolean(row.is_isolating),
    networkIsolationEnabled: Boolean(row.network_isolation_enabled),
    restartQueued: Boolean(row.restart_queued),
    uninstall: Boolean(row.uninstall),
    notes: row.notes,
    registrationMs: row.registration_ms,
    lastCheckinMs: row.last_checkin_ms,
    nextCheckinMs: row.next_checkin_ms,
    lastSequence: row.last_sequence,
    eventLogFlushMs: row.event_log_flush_ms,
    uninstalledMs: row.uninstalled_ms,
    agent: row.agent === 'sysmon' ? 'sysmon' : 'vigil',
  };
}

/**
 * The WHERE clause of a filter. Substrings are tested as replace(column, s, '') <> column: case
 * sensitive like Carbon Black's filters, and the same in SQLite and PostgreSQL (LIKE is not).
 */
export function whereClause(filter: SensorFilter): { sql: string; params: SqlValue[] } {
  const conditions: string[] = [];
  const params: SqlValue[] = [];
  if (filter.groupIds !== undefined) {
    conditions.push(filter.groupIds.length ? `group_id IN (${filter.groupIds.map(() => '?').join(', ')})` : '1 = 0');
    params.push(...filter.groupIds);
  }
  if (filter.hostname) {
    conditions.push("replace(computer_name, ?, '') <> computer_name");
    params.push(filter.hostname);
  }
  if (filter.ip) {
    conditions.push("replace(ip_addresses, ?, '') <> ip_addresses");
    params.push(filter.ip);
  }
  if (filter.activeSinceMs !== undefined) {
    conditions.push('COALESCE(last_checkin_ms, registration_ms) >= ?');
    params.push(filter.activeSinceMs);
  }
  if (filter.afterId !== undefined) {
    conditions.push('id > ?');
    params.push(filter.afterId);
  }
  return { sql: conditions.length ? conditions.join(' AND ') : '1 = 1', params };
}
