/**
 * A simulated sensor's check-in loop. It reports the endpoint's clock, uptime and isolation state,
 * applies isolate/unisolate and ban lists, and acknowledges every instruction by id. Instructions
 * come again until acknowledged, so each is applied once and acknowledged as often as it is sent; a
 * new one triggers an immediate check-in so that its effect is reported without waiting an interval.
 */
import type { BanListPayload } from '../modules/bans/bans.schemas.js';
import type { Endpoint } from './endpoint.js';
import { SensorRequestError, type SensorClient } from './client.js';

export class Checkins {
  /** The last check-in was answered. */
  online = false;
  /** Check-ins lost to network errors or 5xx (the next one repeats them). */
  failures = 0;

  private readonly applied = new Set<number>();
  private readonly toAcknowledge = new Set<number>();
  private readonly startedAt = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private stopped = false;

  /** Starts at once; `onRefused` hears of check-ins the server refused (4xx). */
  constructor(
    private readonly client: SensorClient,
    private readonly endpoint: Endpoint,
    private readonly intervalMs: number,
    private readonly onRefused: (error: Error) => void,
  ) {
    this.schedule(0);
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
    const completed = [...this.toAcknowledge];
    let news = false;
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
        ...(completed.length ? { completed: completed.map((id) => ({ id })) } : {}),
      });
      this.online = true;
      for (const id of completed) this.toAcknowledge.delete(id);
      for (const instruction of reply.instructions) {
        this.toAcknowledge.add(instruction.id);
        if (this.applied.has(instruction.id)) continue;
        this.applied.add(instruction.id);
        news = true;
        if (instruction.type === 'isolate') this.endpoint.isolated = true;
        else if (instruction.type === 'unisolate') this.endpoint.isolated = false;
        else if (instruction.type === 'ban_list') this.endpoint.bans.apply(instruction.payload as BanListPayload);
      }
    } catch (error) {
      this.online = false;
      if (error instanceof SensorRequestError && error.status >= 400 && error.status < 500) this.onRefused(error);
      else this.failures++;
    }
    this.schedule(news ? 0 : this.intervalMs);
  }
}
