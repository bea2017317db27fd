/**
 * Sensors as registration, check-ins and analysts' requests describe them, the instructions waiting for them, and their ingest counters. Written once against SqlDatabase;
 * sensors.store.contract.ts is the contract every dialect must pass.
 */
import type { SqlDatabase, SqlExecutor, SqlValue } from '../../db/database.js';
import { ForeignKeyViolation } from '../../db/errors.js';
import { InvalidRequestError } from '../../domain/errors.js';
import type { HostType, OsType } from '../../domain/sensor-identity.js';
import { recordCheckinChanges, recordStateChange, type StateBeforeCheckin } from './sensor-state-changes.js';
import { CHANGE_COLUMNS, CHECKIN_COLUMNS, SENSOR_ROWS, SORT_EXPRESSIONS, ipAddressesOf, toRecord, whereClause, type SensorRow } from './sensor-sql.js';

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
  /** An analyst asked the sensor to upload everything it holds from before this time. */
  eventLogFlushMs: number | null;
  /** When the sensor confirmed an uninstall instruction. */
  uninstalledMs: number | null;
  agent: SensorAgent;
}

/**
 * What reports for the sensor: Vigil's agent (the sensor protocol), or Sysmon through a shipper,
 * which only sends events and can carry out no instruction.
 */
export type SensorAgent = 'vigil' | 'sysmon';

export type NewSensor = Pick<SensorRecord, 'groupId' | 'secretHash' | 'osType' | 'hostType' | 'registrationMs'> & HostFacts & { agent?: SensorAgent };

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

export interface SensorCheckin {
  id: number;
  facts: CheckinFacts;
}

export interface PendingInstruction {
  id: number;
  type: string;
  payload: unknown;
}

/** Which sensors a listing or count covers; every condition given must hold. */
export interface SensorFilter {
  /** Only sensors in these groups; every group when undefined. */
  groupIds?: readonly number[] | undefined;
  /** A case-sensitive substring of computer_name. */
  hostname?: string | undefined;
  /** A case-sensitive substring of one of the sensor's IP addresses (never of a MAC). */
  ip?: string | undefined;
  /** Checked in (or, never having checked in, registered) at or after this time. */
  activeSinceMs?: number | undefined;
  /** Only sensors with a larger id: where the next page of a listing by id starts. */
  afterId?: number | undefined;
}

export type SensorSort =
  | 'id' | 'computerName' | 'computerDnsName' | 'groupId' | 'osEnvironment' | 'buildVersion' | 'registration' | 'lastCheckin';

/** One page of a listing. Sensors that sort equal are ordered by id, so pages neither repeat nor skip one. */
export interface SensorPage {
  sort: SensorSort;
  descending: boolean;
  start: number;
  rows: number;
}

/** Fields an analyst's request sets; absent ones keep their value. */
export interface SensorChanges {
  groupId?: number | undefined;
  notes?: string | null | undefined;
  networkIsolationEnabled?: boolean | undefined;
  restartQueued?: boolean | undefined;
  uninstall?: boolean | undefined;
  eventLogFlushMs?: number | null | undefined;
}

/** What one analyst request does to a sensor: its fields, then its instruction queue. */
export interface SensorUpdate {
  changes: SensorChanges;
  /** Instructions of these types not yet completed are withdrawn, delivered or not. */
  withdraw: readonly string[];
  /** Instructions queued after the withdrawal, in this order, without payload. */
  enqueue: readonly string[];
}

export interface SensorsStore {
  register(sensor: NewSensor): Promise<SensorRecord>;
  get(id: number): Promise<SensorRecord | undefined>;
  /** The sensors the filter covers, one page of them in the page's order (by id when no page is given). */
  list(filter: SensorFilter, page?: SensorPage): Promise<SensorRecord[]>;
  count(filter: SensorFilter): Promise<number>;
  /**
   * Reads the sensor, lets `decide` say what to change from what it holds now, and applies that in
   * the same transaction, so concurrent requests never interleave; `decide` may throw to change
   * nothing. The updated sensor, or undefined when there is none; InvalidRequestError naming
   * group_id for an unknown group.
   */
  modify(id: number, decide: (current: SensorRecord) => SensorUpdate, nowMs: number): Promise<SensorRecord | undefined>;
  /**
   * Records check-ins, all in one transaction, each as if alone and in the order given (two of one
   * sensor too); for each, false when there is no such sensor. Absent facts keep their value.
   */
  checkin(checkins: readonly SensorCheckin[]): Promise<boolean[]>;
  /** Instructions not yet acknowledged, oldest first; marks them delivered at `nowMs`. */
  pendingInstructions(sensorId: number, nowMs: number): Promise<PendingInstruction[]>;
  /**
   * Marks the sensor's listed instructions done; ids of other sensors, and withdrawn ones, are
   * ignored. A completed restart clears restart_queued (unless another is pending); a completed
   * uninstall marks the sensor uninstalled.
   */
  completeInstructions(sensorId: number, completed: readonly { id: number; result?: unknown }[], nowMs: number): Promise<void>;
  enqueueInstruction(sensorId: number, type: string, payload: unknown, nowMs: number): Promise<number>;
  /** Withdraws these instructions unless they are completed, delivered or not; a later acknowledgement is ignored. */
  withdrawInstructions(ids: readonly number[]): Promise<void>;
  /** Ingest counters (written by the event store) of one sensor, or of all sensors summed when sensorId is undefined. */
  counters(sensorId?: number): Promise<Record<string, number>>;
}

export class SqlSensorsStore implements SensorsStore {
  constructor(private readonly db: SqlDatabase) {}

  async register(sensor: NewSensor): Promise<SensorRecord> {
    const id = await this.db.transaction(async (tx) => {
      const row = await tx.get<{ id: number }>(
        `INSERT INTO sensors (group_id, secret_hash, os_type, host_type, computer_name, computer_dns_name, computer_sid,
           os_environment_display_string, build_version_string, build_id, boot_id, network_adapters, physical_memory_size,
           systemvolume_total_size, systemvolume_free_size, registration_ms, ip_addresses, agent)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        [sensor.groupId, sensor.secretHash, sensor.osType, sensor.hostType, sensor.computerName, sensor.computerDnsName,
          sensor.computerSid, sensor.osEnvironmentDisplayString, sensor.buildVersionString, sensor.buildId, sensor.bootId,
          sensor.networkAdapters, sensor.physicalMemorySize, sensor.systemvolumeTotalSize, sensor.systemvolumeFreeSize,
          sensor.registrationMs, ipAddressesOf(sensor.networkAdapters), sensor.agent ?? 'vigil'],
      );
      await recordStateChange(tx, row!.id, 'sensor.status.registered', sensor.registrationMs);
      return row!.id;
    });
    return (await this.get(id))!;
  }

  async get(id: number): Promise<SensorRecord | undefined> {
    const row = await this.db.get<SensorRow>(`${SENSOR_ROWS} WHERE id = ?`, [id]);
    return row && toRecord(row);
  }

  async list(filter: SensorFilter, page?: SensorPage): Promise<SensorRecord[]> {
    const where = whereClause(filter);
    const direction = page?.descending ? 'DESC' : 'ASC';
    const rows = await this.db.all<SensorRow>(
      `${SENSOR_ROWS} WHERE ${where.sql} ORDER BY ${SORT_EXPRESSIONS[page?.sort ?? 'id']} ${direction}, id ${direction}` +
        (page ? ' LIMIT ? OFFSET ?' : ''),
      page ? [...where.params, page.rows, page.start] : where.params,
    );
    return rows.map(toRecord);
  }

  async count(filter: SensorFilter): Promise<number> {
    const where = whereClause(filter);
    const row = await this.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM sensors WHERE ${where.sql}`, where.params);
    return Number(row?.n ?? 0);
  }

  async modify(id: number, decide: (current: SensorRecord) => SensorUpdate, nowMs: number): Promise<SensorRecord | undefined> {
    return this.db.transaction(async (tx) => {
      const row = await tx.get<SensorRow>(`${SENSOR_ROWS} WHERE id = ?`, [id]);
      if (!row) return undefined;
      const { changes, withdraw, enqueue } = decide(toRecord(row));
      const keys = (Object.keys(CHANGE_COLUMNS) as (keyof SensorChanges)[]).filter((k) => changes[k] !== undefined);
      if (keys.length > 0) {
        try {
          await tx.run(
            `UPDATE sensors SET ${keys.map((k) => `${CHANGE_COLUMNS[k]} = ?`).join(', ')} WHERE id = ?`,
            [...keys.map((k) => changes[k] as SqlValue), id],
          );
        } catch (error) {
          if (error instanceof ForeignKeyViolation) throw new InvalidRequestError(`group_id: no sensor group with id ${changes.groupId}`);
          throw error;
        }
      }
      if (changes.networkIsolationEnabled !== undefined && changes.networkIsolationEnabled !== Boolean(row.network_isolation_enabled)) {
        await recordStateChange(tx, id, changes.networkIsolationEnabled ? 'sensor.isolation.requested' : 'sensor.isolation.released', nowMs);
      }
      if (changes.uninstall === true && !row.uninstall) await recordStateChange(tx, id, 'sensor.uninstall.requested', nowMs);
      for (const type of withdraw) {
        await tx.run('DELETE FROM sensor_instructions WHERE sensor_id = ? AND type = ? AND completed_ms IS NULL', [id, type]);
      }
      for (const type of enqueue) await insertInstruction(tx, id, type, undefined, nowMs);
      return toRecord((await tx.get<SensorRow>(`${SENSOR_ROWS} WHERE id = ?`, [id]))!);
    });
  }

  async checkin(checkins: readonly SensorCheckin[]): Promise<boolean[]> {
    if (checkins.length === 0) return [];
    // Rows are written in id order, so that two servers' batches always lock them in one order
    // (PostgreSQL would otherwise let them deadlock); the sort is stable, so one sensor's keep theirs.
    const order = checkins.map((_, index) => index).sort((a, b) => checkins[a]!.id - checkins[b]!.id);
    return this.db.transaction(async (tx) => {
      const recorded: boolean[] = [];
      for (const index of order) recorded[index] = await recordCheckin(tx, checkins[index]!);
      return recorded;
    });
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
      const types = new Set<string>();
      for (const { id, result } of completed) {
        const row = await tx.get<{ type: string }>(
          'UPDATE sensor_instructions SET completed_ms = ?, result = ? WHERE id = ? AND sensor_id = ? AND completed_ms IS NULL RETURNING type',
          [nowMs, result === undefined ? null : JSON.stringify(result), id, sensorId],
        );
        if (row) types.add(row.type);
      }
      if (types.has('restart')) {
        await tx.run(
          `UPDATE sensors SET restart_queued = CASE WHEN EXISTS (
             SELECT 1 FROM sensor_instructions WHERE sensor_id = ? AND type = 'restart' AND completed_ms IS NULL
           ) THEN 1 ELSE 0 END WHERE id = ?`,
          [sensorId, sensorId],
        );
      }
      if (types.has('uninstall')) {
        await tx.run(
          `INSERT INTO sensor_state_changes (sensor_id, changed_ms, state)
           SELECT id, ?, 'sensor.status.uninstalled' FROM sensors WHERE id = ? AND uninstalled_ms IS NULL`,
          [nowMs, sensorId],
        );
        await tx.run('UPDATE sensors SET uninstalled_ms = COALESCE(uninstalled_ms, ?) WHERE id = ?', [nowMs, sensorId]);
      }
    });
  }

  enqueueInstruction(sensorId: number, type: string, payload: unknown, nowMs: number): Promise<number> {
    return insertInstruction(this.db, sensorId, type, payload, nowMs);
  }

  async withdrawInstructions(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.run(`DELETE FROM sensor_instructions WHERE completed_ms IS NULL AND id IN (${ids.map(() => '?').join(', ')})`, ids);
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

async function insertInstruction(db: SqlExecutor, sensorId: number, type: string, payload: unknown, nowMs: number): Promise<number> {
  const row = await db.get<{ id: number }>(
    'INSERT INTO sensor_instructions (sensor_id, type, payload, created_ms) VALUES (?, ?, ?, ?) RETURNING id',
    [sensorId, type, payload === undefined ? null : JSON.stringify(payload), nowMs],
  );
  return row!.id;
}

async function recordCheckin(tx: SqlExecutor, { id, facts }: SensorCheckin): Promise<boolean> {
  const keys = (Object.keys(CHECKIN_COLUMNS) as (keyof typeof CHECKIN_COLUMNS)[]).filter((k) => facts[k] !== undefined);
  const assignments = [...keys.map((k) => `${CHECKIN_COLUMNS[k]} = ?`), 'clock_delta_ms = ?', 'last_checkin_ms = ?', 'next_checkin_ms = ?'];
  const values: SqlValue[] = [...keys.map((k) => facts[k] as string | number | boolean), facts.clockDeltaMs, facts.lastCheckinMs, facts.nextCheckinMs];
  if (facts.networkAdapters !== undefined) {
    assignments.push('ip_addresses = ?');
    values.push(ipAddressesOf(facts.networkAdapters));
  }
  const before = await tx.get<StateBeforeCheckin>(
    'SELECT last_checkin_ms, next_checkin_ms, registration_ms, is_isolating, uninstalled_ms FROM sensors WHERE id = ?', [id],
  );
  if (before === undefined) return false;
  await tx.run(`UPDATE sensors SET ${assignments.join(', ')} WHERE id = ?`, [...values, id]);
  await recordCheckinChanges(tx, id, before, facts.lastCheckinMs, facts.nextCheckinMs, facts.isIsolating);
  return true;
}
