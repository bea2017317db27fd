/**
 * Throttle rules reach sensors as `throttle` instructions at check-in (docs/sensor-protocol.md):
 * Carbon Black's server, too, told sensors at check-in how much to send. Each instruction carries
 * the whole rule list of the sensor's site, which replaces what the sensor held.
 *
 * At each check-in the list the sensor should hold (its group's site's rules now) is compared with
 * the one last queued for it: when they differ (a rule changed, or the sensor's group moved to
 * another site), the stale instruction is withdrawn if still pending and the new one queued, so a
 * sensor has at most one throttle instruction in flight and always ends up with its site's rules.
 * A sensor never sent any and whose site has none gets nothing.
 */
import type { InstructionQueue } from '../bans/ban-list-delivery.js';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import type { ThrottlePayload } from './throttle.schemas.js';
import { toWire } from './throttle.service.js';
import type { ThrottleStore } from './throttle.store.js';

export interface WithdrawingQueue extends InstructionQueue {
  withdrawInstructions(ids: readonly number[]): Promise<void>;
}

export class ThrottleDelivery {
  constructor(
    private readonly store: ThrottleStore,
    private readonly queue: WithdrawingQueue,
  ) {}

  async checkin(sensor: SensorIdentity, nowMs: number): Promise<void> {
    const site = await this.store.rulesOfGroup(sensor.groupId);
    if (!site) return;
    const payload: ThrottlePayload = {
      site_id: site.siteId,
      rules: site.rules.map((rule) => {
        const { day_of_week, from, to, bytes_per_second } = toWire(rule);
        return { day_of_week, from, to, bytes_per_second };
      }),
    };
    const rules = JSON.stringify(payload);
    const last = await this.store.sensorDelivery(sensor.id);
    if (last ? last.rules === rules : payload.rules.length === 0) return;
    if (last) await this.queue.withdrawInstructions([last.instructionId]);
    const instructionId = await this.queue.enqueueInstruction(sensor.id, 'throttle', payload, nowMs);
    await this.store.saveSensorDelivery(sensor.id, { rules, instructionId });
  }
}
