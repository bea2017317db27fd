/**
 * Figures of a simulation run that a long run needs minute by minute: acknowledgement latencies
 * per minute (a soak's "p99 < 1 s in every minute"), events acknowledged per type (to count them
 * back through search at the end) and check-in latencies across a fleet.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { SensorEvent } from '../ingest/event.schemas.js';

/** Latencies noted with the minute of the run they ended in. */
export class LatencyByMinute {
  private readonly all: number[] = [];
  private readonly minutes: number[][] = [];

  constructor(private readonly startedMs: () => number) {}

  add(latencyMs: number, nowMs: number): void {
    this.all.push(latencyMs);
    const minute = Math.max(0, Math.floor((nowMs - this.startedMs()) / 60_000));
    (this.minutes[minute] ??= []).push(latencyMs);
  }

  percentile(p: number): number {
    return percentile(this.all, p);
  }

  /** The p99 of each minute of the run, from the first; a minute with no acknowledgement is 0. */
  p99ByMinute(): number[] {
    return Array.from(this.minutes, (latencies) => percentile(latencies ?? [], 99));
  }
}

/** Counts events by type as their batches are acknowledged. */
export function tallyTypes(tally: Record<string, number>, events: readonly SensorEvent[]): void {
  for (const event of events) tally[event.type] = (tally[event.type] ?? 0) + 1;
}

/** The p-th percentile (nearest rank, rounded to 0.01 ms) of `values`; sorts them in place. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  values.sort((a, b) => a - b);
  return Math.round(values[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]! * 100) / 100;
}

/** The loop-delay monitor's timer; its histogram holds whole intervals, so this much of each is not lateness. */
const LOOP_DELAY_RESOLUTION_MS = 10;

/** How late the event loop runs, over a run and minute by minute (a histogram per minute). */
export class LoopDelayByMinute {
  private readonly run = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
  private readonly minute = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
  private readonly minutes: number[] = [];
  private timer: NodeJS.Timeout | undefined;

  start(): void {
    this.run.enable();
    this.minute.enable();
    this.timer = setInterval(() => this.endMinute(), 60_000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.endMinute();
    this.run.disable();
    this.minute.disable();
  }

  /** Milliseconds past the timer, p99 and max over the run, and the p99 of each minute (the last one partial). */
  summary(): { p99: number; max: number; p99_by_minute: number[] } {
    return { p99: lateness(this.run.percentile(99)), max: lateness(this.run.max), p99_by_minute: [...this.minutes] };
  }

  private endMinute(): void {
    this.minutes.push(lateness(this.minute.percentile(99)));
    this.minute.reset();
  }
}

/** Milliseconds an interval of a loop-delay histogram (ns) ran past its timer; 0 for an empty one. */
function lateness(intervalNs: number): number {
  return Math.round(Math.max(0, intervalNs / 1e6 - LOOP_DELAY_RESOLUTION_MS) * 100) / 100;
}
