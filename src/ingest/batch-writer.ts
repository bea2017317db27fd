/**
 * Group commit: uploads that arrive while a commit is running wait for the next one, and go to
 * the event store together, so that each durable commit (the costly part) carries many batches.
 * A batch's promise settles only after its commit, which is what lets the protocol promise that an
 * acknowledged batch is stored.
 */
import type { EventStore, IngestBatch, IngestOutcome } from './event-store.js';

interface Pending {
  batch: IngestBatch;
  events: number;
  resolve: (outcome: IngestOutcome) => void;
  reject: (error: unknown) => void;
}

export class BatchWriter {
  private queue: Pending[] = [];
  private running: Promise<void> | undefined;

  constructor(
    private readonly store: EventStore,
    /** Events per commit at most; bounds how long one commit holds the event loop. */
    private readonly maxEventsPerCommit: number,
  ) {}

  write(batch: IngestBatch): Promise<IngestOutcome> {
    return new Promise((resolve, reject) => {
      const events = batch.processes.reduce((sum, process) => sum + process.eventCount, 0);
      this.queue.push({ batch, events, resolve, reject });
      this.running ??= this.drain();
    });
  }

  /** Resolves when everything written so far is committed (used at shutdown). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    // Let the uploads already received join this commit.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const group = this.takeGroup();
      try {
        const outcomes = await this.store.commit(group.map((p) => p.batch));
        group.forEach((pending, i) => pending.resolve(outcomes[i]!));
      } catch (error) {
        for (const pending of group) pending.reject(error);
      }
    }
    this.running = undefined;
  }

  private takeGroup(): Pending[] {
    let events = 0;
    let count = 0;
    while (count < this.queue.length && (count === 0 || events + this.queue[count]!.events <= this.maxEventsPerCommit)) {
      events += this.queue[count]!.events;
      count++;
    }
    return this.queue.splice(0, count);
  }
}
