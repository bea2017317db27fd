/**
 * A simulated sensor's check-in loop. It reports the endpoint's clock, uptime and isolation state,
 * applies isolate/unisolate, ban lists and throttle rules, answers live response, and acknowledges every
 * instruction by id, with its result where it has one (kept until a check-in carrying it is
 * answered). Instructions come again until acknowledged, so each is applied once and acknowledged
 * as often as it is sent; a new one triggers an immediate check-in so that its effect, or its
 * result, is reported without waiting an interval. The next check-in comes after the server's
 * next_checkin_seconds, or the loop's own interval if that is shorter.
 */
import { performance } from 'node:perf_hooks';
import type { BanListPayload } from '../modules/bans/bans.schemas.js';
import type { CommandInstruction } from '../modules/live-response/live-response.schemas.js';
import type { Instruction } from '../modules/sensors/sensor-protocol.schemas.js';
import type { ThrottlePayload } from '../modules/throttle/throttle.schemas.js';
import type { Endpoint } from './endpoint.js';
import { isServerBusy, SensorRequestError, type SensorClient } from './client.js';
import { LiveResponder } from './live-response.js';

export class Checkins {
  /** The last check-in was answered. */
  online = false;
  /** Check-ins lost to network errors or 5xx (the next one repeats them); a 503 (busy) is sent again after its Retry-After. */
  failures = 0;
  /** Milliseconds each answered check-in took, in order, and when each was answered (performance.now()). */
  readonly latencies: number[] = [];
  readonly answeredAt: number[] = [];

  private readonly applied = new Set<number>();
  /** Instruction ids to acknowledge at the next check-in, with their results. */
  private readonly toAcknowledge = new Map<number, unknown>();
  private readonly liveResponse: LiveResponder;
  private readonly startedAt = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private stopped = false;

  /**
   * Starts after `firstDelayMs` (at once by default: a fleet of many spreads its first check-ins
   * over an interval, as real sensors started at different times do); `onRefused` hears of
   * check-ins the server refused (4xx).
   */
  constructor(
    private readonly client: SensorClient,
    private readonly endpoint: Endpoint,
    private readonly intervalMs: number,
    private readonly onRefused: (error: Error) => void,
    firstDelayMs = 0,
  ) {
    this.liveResponse = new LiveResponder(client, endpoint);
    this.schedule(firstDelayMs);
  }

  /** Stops the loop once the check-in in flight, if any, is answered. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.inFlight;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => (this.inFlight = this.checkin()), delayMs);
  }

  private async checkin(): Promise<void> {
    const now = Date.now();
    const sensorNow = this.endpoint.sensorTime(now);
    const completed = [...this.toAcknowledge].map(([id, result]) => (result === undefined ? { id } : { id, result }));
    let news = false;
    let nextMs = this.intervalMs;
    const sentAt = performance.now();
    try {
      const reply = await this.client.checkin({
        sensor_time: sensorNow,
        uptime: Math.floor((sensorNow - this.endpoint.bootMs) / 1000),
        sensor_uptime: Math.floor((now - this.startedAt) / 1000),
        boot_id: this.endpoint.facts.boot_id,
        is_isolating: this.endpoint.isolated,
        health_status: 100,
        health_message: 'Healthy',
        network_adapters: this.endpoint.facts.network_adapters,
        ...(completed.length ? { completed } : {}),
      });
      this.answeredAt.push(performance.now());
      this.latencies.push(this.answeredAt.at(-1)! - sentAt);
      this.online = true;
      nextMs = Math.min(nextMs, reply.next_checkin_seconds * 1000);
      for (const { id } of completed) this.toAcknowledge.delete(id);
      for (const instruction of reply.instructions) {
        if (this.applied.has(instruction.id)) {
          if (!this.toAcknowledge.has(instruction.id)) this.toAcknowledge.set(instruction.id, undefined);
          continue;
        }
        this.applied.add(instruction.id);
        news = true;
        this.toAcknowledge.set(instruction.id, await this.apply(instruction));
      }
    } catch (error) {
      this.online = false;
      if (error instanceof SensorRequestError && isServerBusy(error.status)) nextMs = Math.min(nextMs, error.retryAfterMs ?? nextMs);
      else if (error instanceof SensorRequestError && error.status >= 400 && error.status < 500) this.onRefused(error);
      else this.failures++;
    }
    this.schedule(news ? 0 : nextMs);
  }

  /** Carries out an instruction; its result, for those that have one. */
  private async apply(instruction: Instruction): Promise<unknown> {
    switch (instruction.type) {
      case 'isolate': this.endpoint.isolated = true; return undefined;
      case 'unisolate': this.endpoint.isolated = false; return undefined;
      case 'ban_list': this.endpoint.bans.apply(instruction.payload as BanListPayload); return undefined;
      case 'throttle': this.endpoint.throttle.apply(instruction.payload as ThrottlePayload); return undefined;
      case 'live_response_session': return this.liveResponse.attach();
      case 'live_response': return this.liveResponse.run(instruction.payload as CommandInstruction);
      default: return undefined;
    }
  }
}
