/**
 * Bans reach sensors as `ban_list` instructions at check-in (docs/sensor-protocol.md).
 *
 * Every change of the set of enabled bans makes a new ban-list version. Each sensor has the
 * version it acknowledged (0: it holds no bans) and at most one ban_list instruction in flight,
 * which the check-in sends again until the sensor acknowledges it; the next one goes out in the
 * reply to that acknowledgement. A sensor gets the changes since its version, or the whole list
 * when it holds none, when the changes would outnumber the list, or when its version is one the
 * server never issued. Applying a change list to a sensor that is already past its base (it
 * applied an instruction whose acknowledgement was lost) is harmless: each entry sets an md5's
 * state to what it is now.
 *
 * A sensor in a group with banning_enabled off gets nothing, and one that held bans when its
 * group stopped banning is told to drop them (the empty list, version 0).
 */
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import type { BanListPayload } from './bans.schemas.js';
import type { BansStore } from './bans.store.js';

/** Where instructions for sensors wait (the sensors store). */
export interface InstructionQueue {
  enqueueInstruction(sensorId: number, type: string, payload: unknown, nowMs: number): Promise<number>;
}

/** Whether a sensor group's sensors enforce bans (its banning_enabled). */
export interface BanningPolicy {
  banningEnabled(groupId: number): Promise<boolean>;
}

const DROP_EVERYTHING: BanListPayload = { version: 0, added: [], removed: [], full: true };

export class BanListDelivery {
  constructor(
    private readonly store: BansStore,
    private readonly queue: InstructionQueue,
    private readonly policy: BanningPolicy,
  ) {}

  /** A check-in's part in banning: learns what the sensor acknowledged, queues what it should get next. */
  async checkin(sensor: SensorIdentity, acknowledged: readonly number[], nowMs: number): Promise<void> {
    const { ackedVersion, pending } = await this.store.sensorBanList(sensor.id);
    if (pending && !acknowledged.includes(pending.instructionId)) return;
    const acked = pending ? pending.version : ackedVersion;
    const payload = await this.next(sensor.groupId, acked);
    if (!payload) {
      if (pending) await this.store.saveSensorBanList(sensor.id, { ackedVersion: acked });
      return;
    }
    const instructionId = await this.queue.enqueueInstruction(sensor.id, 'ban_list', payload, nowMs);
    await this.store.saveSensorBanList(sensor.id, { ackedVersion: acked, pending: { instructionId, version: payload.version } });
  }

  /** What a sensor holding `acked` should get next; undefined when it holds what it should. */
  private async next(groupId: number, acked: number): Promise<BanListPayload | undefined> {
    if (!(await this.policy.banningEnabled(groupId))) return acked === 0 ? undefined : DROP_EVERYTHING;
    // The common case, a sensor in step, costs one read.
    if (acked === (await this.store.listVersion())) return undefined;
    const list = await this.store.listState(acked);
    if (acked === list.version || (acked === 0 && list.enabled === 0)) return undefined;
    if (acked === 0 || acked > list.version || list.changed > list.enabled) {
      const { version, md5s } = await this.store.enabledBans();
      return { version, added: md5s.map((md5) => ({ md5 })), removed: [], full: true };
    }
    const { version, changes } = await this.store.changesSince(acked);
    return {
      version,
      added: changes.filter((change) => change.enabled).map(({ md5 }) => ({ md5 })),
      removed: changes.filter((change) => !change.enabled).map(({ md5 }) => md5),
      full: false,
    };
  }
}
