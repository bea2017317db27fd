/**
 * Sensors as registration and check-ins describe them, their install codes, the instructions
 * waiting for them, and their ingest counters. Written once against SqlDatabase;
 * sensors.store.contract.ts is the contract every dialect must pass.
 */
import type { SqlDatabase } from '../../db/database.js';

export type OsType = 'windows' | 'osx' | 'linux';
export type HostType = 'workstation' | 'server' | 'domain_controller';

/** Facts a sensor reports about its host; at check-in any may be absent (unchanged). */
export interface HostFacts {
  computerName: string;
  computerDnsName: string;
  computerSid: string;
  osEnvironmentDisplayString: string;
  buildVersionString: string;
  buildId: number;
  bootId: string;
  /** Carbon Black's form: "<ip>,<mac>|" repeated. */
  networkAdapters: string;
  physicalMemorySize: number;
  systemvolumeTotalSize: number;
  systemvolumeFreeSize: number;
}

export interface SensorRecord extends HostFacts {
  id: number;
  groupId: number;
  secretHash: string;
  osType: OsType;
  hostType: HostType;
  uptime: number;
  sensorUptime: number;
  clockDeltaMs: number;
  healthStatus: number;
  healthMessage: string;
  isIsolating: boolean;
  networkIsolationEnabled: boolean;
  restartQueued: boolean;
  uninstall: boolean;
  notes: string | null;
  registrationMs: number;
  lastCheckinMs: number | null;
  nextCheckinMs: number | null;
  lastSequence: number;
}

export type NewSensor = Pick<SensorRecord, 'groupId' | 'secretHash' | 'osType' | 'hostType' | 'registrationMs'> & HostFacts;

export interface CheckinFacts extends Partial<HostFacts> {
  uptime?: number | undefined;
  sensorUptime?: number | undefined;
  clockDeltaMs: number;
  healthStatus?: number | undefined;
  healthMessage?: string | undefined;
  isIsolating?: boolean | undefined;
  lastCheckinMs: number;
  nextCheckinMs: number;
}

export interface PendingInstruction {
  id: number;
  type: string;
  payload: unknown;
}

export interface SensorsStore {
  /** The group's install code, created (from `candidate`) the first time it is asked for. */
  installCode(groupId: number, candidate: string): Promise<string>;
  groupForInstallCode(code: string): Promise<number | undefined>;
  register(sensor: NewSensor): Promise<SensorRecord>;
  get(id: number): Promise<SensorRecord | undefined>;
  /** Records a check-in; false when there is no such sensor. Absent facts keep their value. */
  checkin(id: number, facts: CheckinFacts): Promise<boolean>;
  /** Instructions not yet acknowledged, oldest first; marks them delivered at `nowMs`. */
  pendingInstructions(sensorId: number, nowMs: number): Promise<PendingInstruction[]>;
  /** Marks the sensor's listed instructions done; ids of other sensors are ignored. */
  completeInstructions(sensorId: number, completed: readonly { id: number; result?: unknown }[], nowMs: number): Promise<void>;
  enqueueInstruction(sensorId: number, type: string, payload: unknown, nowMs: number): Promise<number>;
  /** Ingest counters (written by the event store) of one sensor, or of all sensors summed when sensorId is undefined. */
  counters(sensorId?: number): Promise<Record<string, number>>;
}

interface SensorRow {
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
}

const CHECKIN_COLUMNS: Record<keyof Omit<CheckinFacts, 'lastCheckinMs' | 'nextCheckinMs' | 'clockDeltaMs'>, string> = {
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

export class SqlSensorsStore implements SensorsStore {
  constructor(private readonly db: SqlDatabase) {}

  async installCode(groupId: number, candidate: string): Promise<string> {
    return this.db.transaction(async (tx) => {
      const existing = await tx.get<{ code: string }>('SELECT code FROM sensor_install_codes WHERE group_id = ?', [groupId]);
      if (existing) return existing.code;
      await tx.run('INSERT INTO sensor_install_codes (group_id, code) VALUES (?, ?)', [groupId, candidate]);
      return candidate;
    });
  }

  async groupForInstallCode(code: string): Promise<number | undefined> {
    const row = await this.db.get<{ group_id: number }>('SELECT group_id FROM sensor_install_codes WHERE code = ?', [code]);
    return row?.group_id;
  }

  async register(sensor: NewSensor): Promise<SensorRecord> {
    const row = await this.db.get<{ id: number }>(
      `INSERT INTO sensors (group_id, secret_hash, os_type, host_type, computer_name, computer_dns_name, computer_sid,
         os_environment_display_string, build_version_string, build_id, boot_id, network_adapters, physical_memory_size,
         systemvolume_total_size, systemvolume_free_size, registration_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      [sensor.groupId, sensor.secretHash, sensor.osType, sensor.hostType, sensor.computerName, sensor.computerDnsName,
        sensor.computerSid, sensor.osEnvironmentDisplayString, sensor.buildVersionString, sensor.buildId, sensor.bootId,
        sensor.networkAdapters, sensor.physicalMemorySize, sensor.systemvolumeTotalSize, sensor.systemvolumeFreeSize,
        sensor.registrationMs],
    );
    return (await this.get(row!.id))!;
  }

  async get(id: number): Promise<SensorRecord | undefined> {
    const row = await this.db.get<SensorRow>('SELECT * FROM sensors WHERE id = ?', [id]);
    return row && toRecord(row);
  }

  async checkin(id: number, facts: CheckinFacts): Promise<boolean> {
    const keys = (Object.keys(CHECKIN_COLUMNS) as (keyof typeof CHECKIN_COLUMNS)[]).filter((k) => facts[k] !== undefined);
    const { changes } = await this.db.run(
      `UPDATE sensors SET ${[...keys.map((k) => `${CHECKIN_COLUMNS[k]} = ?`), 'clock_delta_ms = ?', 'last_checkin_ms = ?', 'next_checkin_ms = ?'].join(', ')}
       WHERE id = ?`,
      [...keys.map((k) => facts[k] as string | number | boolean), facts.clockDeltaMs, facts.lastCheckinMs, facts.nextCheckinMs, id],
    );
    return changes > 0;
  }

  async pendingInstructions(sensorId: number, nowMs: number): Promise<PendingInstruction[]> {
    const rows = await this.db.all<{ id: number; type: string; payload: string | null }>(
      'SELECT id, type, payload FROM sensor_instructions WHERE sensor_id = ? AND completed_ms IS NULL ORDER BY id',
      [sensorId],
    );
    if (rows.length > 0) {
      await this.db.run(
        'UPDATE sensor_instructions SET delivered_ms = ? WHERE sensor_id = ? AND completed_ms IS NULL AND delivered_ms IS NULL',
        [nowMs, sensorId],
      );
    }
    return rows.map((row) => ({ id: row.id, type: row.type, payload: row.payload === null ? undefined : JSON.parse(row.payload) }));
  }

  async completeInstructions(sensorId: number, completed: readonly { id: number; result?: unknown }[], nowMs: number): Promise<void> {
    if (completed.length === 0) return;
    await this.db.transaction(async (tx) => {
      for (const { id, result } of completed) {
        await tx.run(
          'UPDATE sensor_instructions SET completed_ms = ?, result = ? WHERE id = ? AND sensor_id = ? AND completed_ms IS NULL',
          [nowMs, result === undefined ? null : JSON.stringify(result), id, sensorId],
        );
      }
    });
  }

  async enqueueInstruction(sensorId: number, type: string, payload: unknown, nowMs: number): Promise<number> {
    const row = await this.db.get<{ id: number }>(
      'INSERT INTO sensor_instructions (sensor_id, type, payload, created_ms) VALUES (?, ?, ?, ?) RETURNING id',
      [sensorId, type, payload === undefined ? null : JSON.stringify(payload), nowMs],
    );
    return row!.id;
  }

  async counters(sensorId?: number): Promise<Record<string, number>> {
    const rows = await this.db.all<{ name: string; value: number }>(
      sensorId === undefined
        ? 'SELECT name, SUM(value) AS value FROM ingest_counters GROUP BY name ORDER BY name'
        : 'SELECT name, value FROM ingest_counters WHERE sensor_id = ? ORDER BY name',
      sensorId === undefined ? [] : [sensorId],
    );
    return Object.fromEntries(rows.map((row) => [row.name, Number(row.value)]));
  }
}

function toRecord(row: SensorRow): SensorRecord {
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
    buildId: row.build_id,
    bootId: row.boot_id,
    networkAdapters: row.network_adapters,
    physicalMemorySize: row.physical_memory_size,
    systemvolumeTotalSize: row.systemvolume_total_size,
    systemvolumeFreeSize: row.systemvolume_free_size,
    uptime: row.uptime,
    sensorUptime: row.sensor_uptime,
    clockDeltaMs: row.clock_delta_ms,
    healthStatus: row.health_status,
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
  };
}
