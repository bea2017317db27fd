/**
 * Time limits of live response, applied whenever sessions are looked at (an API call, the
 * sensor's check-in) rather than by a timer: what is past its limit is timed out in the store and
 * its instructions are withdrawn before anyone sees the state, so a sensor never receives work for
 * a session that has ended. Files older than the storage TTL are forgotten, at most once an hour.
 */
import type { ExpiryLimits, LiveResponseStore } from './live-response.store.js';
import type { LiveResponseContent } from './live-response-files.js';

/** Where instructions for sensors wait (the sensors store). */
export interface InstructionQueue {
  enqueueInstruction(sensorId: number, type: string, payload: unknown, nowMs: number): Promise<number>;
  withdrawInstructions(ids: readonly number[]): Promise<void>;
}

const FILE_SWEEP_INTERVAL_MS = 3_600_000;

export class LiveResponseExpiry {
  private nextFileSweepMs = 0;

  constructor(
    private readonly store: LiveResponseStore,
    private readonly queue: InstructionQueue,
    private readonly files: LiveResponseContent,
    readonly limits: ExpiryLimits,
    private readonly storageTtlMs: number,
  ) {}

  /** Times out what is past its limits, of one sensor or of all. */
  async run(nowMs: number, sensorId?: number): Promise<void> {
    await this.withdraw(await this.store.expire(nowMs, this.limits, sensorId));
    if (sensorId === undefined && nowMs >= this.nextFileSweepMs) {
      this.nextFileSweepMs = nowMs + FILE_SWEEP_INTERVAL_MS;
      await this.files.remove(await this.store.dropFilesCreatedBefore(nowMs - this.storageTtlMs));
    }
  }

  async withdraw(instructionIds: readonly number[]): Promise<void> {
    if (instructionIds.length > 0) await this.queue.withdrawInstructions(instructionIds);
  }
}
