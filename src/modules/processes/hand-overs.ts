/**
 * On the event writer's thread: batches another thread prepared and posted straight here
 * (docs/adr/0035), held until the commit that names them takes them, or until they are dropped.
 * They arrive on their own port, so a commit or a drop may come first: a take then waits for the
 * batch, and a drop is remembered so that the batch is let go when it comes.
 */
import type { PreparedProcess } from '../../ingest/prepare.js';

export class HandOvers {
  private readonly arrived = new Map<string, PreparedProcess[]>();
  private readonly waiting = new Map<string, (processes: PreparedProcess[]) => void>();
  private readonly dropped = new Set<string>();

  arrive(ref: string, processes: PreparedProcess[]): void {
    if (this.dropped.delete(ref)) return;
    const waiter = this.waiting.get(ref);
    if (waiter === undefined) {
      this.arrived.set(ref, processes);
    } else {
      this.waiting.delete(ref);
      waiter(processes);
    }
  }

  take(ref: string): Promise<PreparedProcess[]> {
    const processes = this.arrived.get(ref);
    if (processes === undefined) return new Promise((resolve) => this.waiting.set(ref, resolve));
    this.arrived.delete(ref);
    return Promise.resolve(processes);
  }

  drop(ref: string): void {
    if (!this.arrived.delete(ref)) this.dropped.add(ref);
  }

  /** Batches held and drops waiting for their batch (tests read it: nothing may be left behind). */
  get held(): number {
    return this.arrived.size + this.dropped.size;
  }
}
