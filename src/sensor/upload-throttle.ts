/**
 * The upload limits a simulated sensor keeps from the server's `throttle` instructions
 * (docs/sensor-protocol.md): its site's whole rule list, replacing what it held. While the
 * sensor's clock is inside a rule (local day of week, from ≤ hour < to), its uploads average at
 * most that rule's bytes per second (the lowest, where rules overlap); outside every rule they are
 * not held back.
 */
import type { ThrottlePayload } from '../modules/throttle/throttle.schemas.js';

export class UploadThrottle {
  private rules: ThrottlePayload['rules'] = [];
  /** When (a monotonic clock, ms) the bytes booked so far have been paid for. */
  private paidUntil = 0;

  apply(payload: ThrottlePayload): void {
    this.rules = payload.rules;
  }

  /** Bytes per second allowed at a sensor-clock time; undefined when no rule covers it. */
  limitAt(sensorMs: number): number | undefined {
    const at = new Date(sensorMs);
    const limits = this.rules
      .filter((rule) => rule.day_of_week === at.getDay() && rule.from <= at.getHours() && at.getHours() < rule.to)
      .map((rule) => rule.bytes_per_second);
    return limits.length > 0 ? Math.min(...limits) : undefined;
  }

  /**
   * Books an upload of `bytes` at `nowMs` (monotonic) under `limit`, and says how long to wait
   * before sending it: an upload goes once the ones before it are paid for at the limit. Without
   * a limit it goes at once and leaves nothing owed.
   */
  delayFor(bytes: number, limit: number | undefined, nowMs: number): number {
    if (limit === undefined) {
      this.paidUntil = nowMs;
      return 0;
    }
    const at = Math.max(nowMs, this.paidUntil);
    this.paidUntil = at + (bytes * 1000) / limit;
    return at - nowMs;
  }
}
