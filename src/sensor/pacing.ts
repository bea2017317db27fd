/** When a simulated fleet sends: a pace for the fleet's events, and the end of an idle fleet's life. */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/** Resolves at the deadline, or when the signal aborts: the life of a fleet of idle sensors. */
export async function untilStopped(deadline: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return;
  const wait = deadline === Infinity ? undefined : Math.max(0, deadline - performance.now());
  await new Promise<void>((resolve) => {
    const timer = wait === undefined ? undefined : setTimeout(resolve, wait);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

/** Spaces batches so that the whole fleet sends `rate` events a second on average. */
export class Pacer {
  private nextAt = performance.now();

  constructor(private readonly rate: number) {}

  async take(events: number): Promise<void> {
    const now = performance.now();
    const at = Math.max(now, this.nextAt);
    this.nextAt = at + (events * 1000) / this.rate;
    if (at > now) await sleep(at - now);
  }
}
