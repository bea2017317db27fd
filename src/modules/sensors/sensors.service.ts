/**
 * Sensors from both sides. The sensor protocol's control plane: install codes, registration,
 * sensor authentication and check-ins (docs/sensor-protocol.md). The analyst's: reading sensors
 * (each caller sees the sensors of the groups they may view), requesting isolation, restart,
 * uninstall or a group move (administrators of the group), statistics and ingest counters.
 */
import { createHash, randomBytes } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import { ForbiddenError, InvalidRequestError, NotFoundError, UnauthorizedError } from '../../domain/errors.js';
import { canAdministerGroup, canViewGroup, requireGlobalAdmin, type Principal } from '../../domain/permissions.js';
import { digestsEqual } from '../users/credentials.js';
import { isPlainHeartbeat } from './checkin-timing.js';
import { CheckinWrites, withUnwritten } from './checkin-writes.js';
import { toWire } from './sensor-record.js';
import { filterOf, pageOf } from './sensor-filters.js';
import { planUpdate, requestOf } from './sensor-requests.js';
import type { CheckinBody, CheckinReply, Instruction, RegisterBody, RegisterReply } from './sensor-protocol.schemas.js';
import type {
  Sensor, SensorListQuery, SensorSearchQuery, SensorSearchReply, SensorStatistics, SensorUpdateBody,
} from './sensors.schemas.js';
import type { InstallCodesStore } from './install-codes.store.js';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import type { CheckinFacts, SensorRecord, SensorsStore } from './sensors.store.js';

export interface SensorTimings {
  checkinIntervalSeconds: number;
}

/** Anything that can say whether a group exists (the groups store). */
export interface GroupDirectory {
  get(id: number): Promise<unknown>;
}

/** An instruction the sensor acknowledges at a check-in, with its result where it has one. */
export interface CompletedInstruction {
  id: number;
  result?: unknown;
}

/** What a check-in hook may ask of the reply: the sensor's next check-in sooner than the configured interval. */
export interface CheckinAsk {
  nextCheckinSeconds?: number | undefined;
}

/**
 * Another module's part in every check-in (banning's ban_list delivery, live response): it runs
 * after the sensor's acknowledgements (`completed`) are recorded and before pending instructions
 * are read, so whatever it queues goes out in this very reply. The reply tells the sensor to check
 * in again after the shortest interval any hook asks for.
 */
export type CheckinHook = (sensor: SensorIdentity, completed: readonly CompletedInstruction[], nowMs: number) => Promise<CheckinAsk | void>;

const AUTHORIZATION = /^Sensor (\d{1,10}):([0-9a-f]{64})$/;

const DAY_MS = 86_400_000;

/** Sensors read and shaped between two turns of the event loop in a full listing: some milliseconds' work. */
const LISTING_PAGE_ROWS = 500;

export class SensorsService {
  private readonly checkinHooks: CheckinHook[] = [];
  private readonly checkinWrites: CheckinWrites;
  /** The row each identity was authenticated from, which says whether its check-in may be answered before it is written. */
  private readonly authenticatedFrom = new WeakMap<SensorIdentity, SensorRecord>();

  constructor(
    private readonly store: SensorsStore,
    private readonly installCodes: InstallCodesStore,
    private readonly groups: GroupDirectory,
    private readonly timings: SensorTimings,
    private readonly now: () => number = Date.now,
  ) {
    // The sensor sends the same again at its next check-in: a heartbeat not recorded costs nothing lasting.
    this.checkinWrites = new CheckinWrites(store, (error) => process.emitWarning(`sensor check-ins not recorded: ${String(error)}`));
  }

  /**
   * Settles once every check-in answered so far is written. The analyst's reads wait for it, so
   * that they show the check-ins this server answered; the container waits for it before closing the store.
   */
  checkinsWritten(): Promise<void> {
    return this.checkinWrites.written();
  }

  onCheckin(hook: CheckinHook): void {
    this.checkinHooks.push(hook);
  }

  /** The install code of a group, for whoever may administer it. */
  async installCode(actor: Principal, groupId: number): Promise<{ group_id: number; install_code: string }> {
    // Checked first, so a caller without access cannot tell which groups exist.
    if (!canAdministerGroup(actor, groupId)) throw new ForbiddenError(`No administrator access to sensor group ${groupId}`);
    if (!(await this.groups.get(groupId))) throw new NotFoundError(`No sensor group with id ${groupId}`);
    return { group_id: groupId, install_code: await this.installCodes.installCode(groupId, randomBytes(24).toString('hex')) };
  }

  async register(body: RegisterBody): Promise<RegisterReply> {
    const groupId = await this.installCodes.groupForInstallCode(body.install_code);
    if (groupId === undefined) throw new UnauthorizedError('Unknown install code');
    const secret = randomBytes(32).toString('hex');
    const sensor = await this.store.register({
      groupId,
      secretHash: hashSecret(secret),
      osType: body.os_type,
      hostType: body.host_type ?? 'workstation',
      registrationMs: this.now(),
      computerName: body.computer_name,
      computerDnsName: body.computer_dns_name ?? body.computer_name,
      computerSid: body.computer_sid ?? '',
      osEnvironmentDisplayString: body.os_environment_display_string ?? '',
      buildVersionString: body.build_version_string,
      buildId: body.build_id ?? 0,
      bootId: body.boot_id,
      networkAdapters: formatAdapters(body.network_adapters) ?? '',
      physicalMemorySize: body.physical_memory_size ?? 0,
      systemvolumeTotalSize: body.systemvolume_total_size ?? 0,
      systemvolumeFreeSize: body.systemvolume_free_size ?? 0,
    });
    return {
      sensor_id: sensor.id,
      sensor_secret: secret,
      group_id: sensor.groupId,
      checkin_interval_seconds: this.timings.checkinIntervalSeconds,
    };
  }

  /** The sensor behind an `Authorization: Sensor <id>:<secret>` header; UnauthorizedError otherwise. */
  async authenticate(header: string | undefined): Promise<SensorIdentity> {
    const match = header === undefined ? null : AUTHORIZATION.exec(header.trim());
    if (!match) throw new UnauthorizedError('Missing or malformed sensor credentials');
    const sensor = await this.store.get(Number(match[1]));
    if (!sensor || !digestsEqual(sensor.secretHash, hashSecret(match[2]!))) {
      throw new UnauthorizedError('Unknown sensor or wrong secret');
    }
    const identity = identityOf(sensor);
    this.authenticatedFrom.set(identity, sensor);
    return identity;
  }

  async checkin(sensor: SensorIdentity, body: CheckinBody): Promise<CheckinReply> {
    const now = this.now();
    const completed = body.completed ?? [];
    await this.store.completeInstructions(sensor.id, completed, now);
    let interval = this.timings.checkinIntervalSeconds;
    for (const hook of this.checkinHooks) {
      const ask = await hook(sensor, completed, now);
      if (ask?.nextCheckinSeconds !== undefined) interval = Math.min(interval, ask.nextCheckinSeconds);
    }
    const facts: CheckinFacts = {
      computerName: body.computer_name,
      computerDnsName: body.computer_dns_name,
      computerSid: body.computer_sid,
      osEnvironmentDisplayString: body.os_environment_display_string,
      buildVersionString: body.build_version_string,
      buildId: body.build_id,
      bootId: body.boot_id,
      networkAdapters: formatAdapters(body.network_adapters),
      physicalMemorySize: body.physical_memory_size,
      systemvolumeTotalSize: body.systemvolume_total_size,
      systemvolumeFreeSize: body.systemvolume_free_size,
      uptime: body.uptime,
      sensorUptime: body.sensor_uptime,
      healthStatus: body.health_status,
      healthMessage: body.health_message,
      isIsolating: body.is_isolating,
      clockDeltaMs: body.sensor_time - now,
      lastCheckinMs: now,
      nextCheckinMs: now + interval * 1000,
    };
    const before = this.authenticatedFrom.get(sensor);
    if (before && isPlainHeartbeat(before, body, now, this.timings.checkinIntervalSeconds)) this.checkinWrites.recordUnwaited(sensor.id, facts);
    else await this.checkinWrites.record(sensor.id, facts);
    const instructions = await this.store.pendingInstructions(sensor.id, now);
    return {
      server_time: now,
      next_checkin_seconds: interval,
      instructions: instructions.map((i) => ({ id: i.id, type: i.type as Instruction['type'], payload: i.payload })),
    };
  }

  /** Every sensor the caller can see that the filters cover (GET /api/v1/sensor), by id. */
  async list(actor: Principal, query: SensorListQuery): Promise<Sensor[]> {
    const sensors: Sensor[] = [];
    for await (const page of this.listPages(actor, query)) sensors.push(...page);
    return sensors;
  }

  /**
   * The same listing a page at a time, the event loop let run between pages: a fleet of 10,000
   * read and shaped at once held the request thread for most of a second, and every check-in
   * arriving meanwhile waited for it (issue 22 point 5). Pages follow ids, so a sensor
   * registered or changed while the listing runs never makes another appear twice or not at all.
   * Heartbeats answered but not yet written are shown over the rows rather than waited for: their
   * writes queue behind the event writer's lock and every transaction before them, and under
   * upload load that held the listing for seconds (ADR 0037, second amendment).
   */
  async *listPages(actor: Principal, query: SensorListQuery): AsyncGenerator<Sensor[]> {
    const now = this.now();
    const filter = filterOf(actor, query);
    // Clients send 0 for "no limit".
    if (query.inactive_filter_days) filter.activeSinceMs = now - query.inactive_filter_days * DAY_MS;
    const page = { sort: 'id', descending: false, start: 0, rows: LISTING_PAGE_ROWS } as const;
    for (let afterId: number | undefined; ;) {
      const unwritten = this.checkinWrites.unwritten();
      const sensors = await this.store.list({ ...filter, afterId }, page);
      if (sensors.length > 0) yield sensors.map((sensor) => this.wire(withUnwritten(sensor, unwritten.get(sensor.id)), now));
      if (sensors.length < LISTING_PAGE_ROWS) return;
      afterId = sensors.at(-1)!.id;
      await setImmediate();
    }
  }

  /** One page of them in a total order (GET /api/v2/sensor): iterating the pages meets every sensor once. */
  async search(actor: Principal, query: SensorSearchQuery): Promise<SensorSearchReply> {
    await this.checkinWrites.written();
    const now = this.now();
    const filter = filterOf(actor, query);
    const page = pageOf(query);
    const [total, sensors] = await Promise.all([
      this.store.count(filter),
      page.rows === 0 ? [] : this.store.list(filter, page),
    ]);
    return { results: sensors.map((sensor) => this.wire(sensor, now)), total_results: total, facets: {} };
  }

  async get(actor: Principal, id: number): Promise<Sensor> {
    return this.wire(await this.visible(actor, id), this.now());
  }

  /**
   * Applies an analyst's PUT (sensor-requests.ts says what it does). Changing a sensor takes
   * administrator access to its group, and moving it administrator access to the new one too.
   */
  async update(actor: Principal, id: number, body: SensorUpdateBody): Promise<void> {
    const current = await this.visible(actor, id);
    const mayChange = (sensor: SensorRecord) => {
      if (!canAdministerGroup(actor, sensor.groupId)) throw new ForbiddenError(`No administrator access to sensor group ${sensor.groupId}`);
    };
    mayChange(current);
    const target = body.group_id;
    if (target !== undefined && target !== current.groupId) {
      if (!canAdministerGroup(actor, target)) throw new ForbiddenError(`No administrator access to sensor group ${target}`);
      if (!(await this.groups.get(target))) throw new InvalidRequestError(`group_id: no sensor group with id ${target}`);
    }
    const request = { ...requestOf(body), groupId: target };
    // Decided again inside the store's transaction, on the sensor as it is then.
    await this.store.modify(id, (latest) => {
      mayChange(latest);
      return planUpdate(latest, request);
    }, this.now());
  }

  /**
   * The sensor's diagnostics lists (queued, activity, resource status). Vigil sensors stream
   * their events, so nothing is ever queued, and report no such diagnostics: always empty, but
   * only for a sensor the caller can see, as cbapi's Sensor properties expect.
   */
  async diagnostics(actor: Principal, id: number): Promise<never[]> {
    await this.visible(actor, id);
    return [];
  }

  async statistics(actor: Principal): Promise<SensorStatistics> {
    await this.checkinWrites.written();
    const filter = filterOf(actor, {});
    const [all, active] = await Promise.all([
      this.store.count(filter),
      this.store.count({ ...filter, activeSinceMs: this.now() - DAY_MS }),
    ]);
    return { sensor_count: all, active_sensor_count: active, num_eventlog_bytes: 0, num_storefile_bytes: 0 };
  }

  /** The sensor, when the caller may view its group; NotFoundError alike for both, so ids reveal nothing. */
  private async visible(actor: Principal, id: number): Promise<SensorRecord> {
    await this.checkinWrites.written();
    const sensor = await this.store.get(id);
    if (!sensor || !canViewGroup(actor, sensor.groupId)) throw new NotFoundError(`No sensor with id ${id}`);
    return sensor;
  }

  private wire(sensor: SensorRecord, now: number): Sensor {
    return toWire(sensor, now, this.timings.checkinIntervalSeconds);
  }

  /** Ingest counters of one sensor (anyone who can view its group) or of all (global admins). */
  async ingestCounters(actor: Principal, sensorId?: number): Promise<Record<string, number>> {
    if (sensorId === undefined) {
      requireGlobalAdmin(actor, 'read server-wide ingest counters');
      return this.store.counters();
    }
    await this.visible(actor, sensorId);
    return this.store.counters(sensorId);
  }
}

function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

function identityOf(sensor: SensorRecord): SensorIdentity {
  return {
    id: sensor.id,
    groupId: sensor.groupId,
    hostname: sensor.computerName.toLowerCase(),
    hostType: sensor.hostType,
    osType: sensor.osType,
  };
}

/** Carbon Black's network_adapters text: "<ip>,<mac>|" per adapter. */
function formatAdapters(adapters: RegisterBody['network_adapters']): string | undefined {
  return adapters?.map((adapter) => `${adapter.ip},${adapter.mac.toLowerCase()}|`).join('');
}
