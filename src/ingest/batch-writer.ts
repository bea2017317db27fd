/**
 * Group commit: uploads that arrive while a commit is running wait for the next one, and go to
 * the event store together, so that each durable commit (the costly part) carries many batches.
 * A batch's promise settles only after its commit, which is what lets the protocol promise that an
 * acknowledged batch is stored. A store that overlaps its commits (readyForNext) gets the next
 * group as soon as it can take it, not when the previous commit has finished.
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
  /** The last commit handed to the store, settled (the store finishes its commits in order). */
  private lastCommit: Promise<void> = Promise.resolve();
  /** Events of the batches queued and not yet handed to a commit. */
  private queuedEvents = 0;

  constructor(
    private readonly store: EventStore,
    /** Events per commit at most; bounds how long one commit holds the event loop. */
    private readonly maxEventsPerCommit: number,
  ) {}

  /**
   * Whether a batch of `events` may wait for its commit in the store's writer thread (a hand-over)
   * rather than here: while the queue holds at most two commits' worth of events, so that what a
   * backlog of uploads holds stays in the request thread's heap, not in the writer's, whose limit
   * (ingestWriterHeapMb) ends ingest when passed.
   */
  mayHandOver(events: number): boolean {
    return this.queuedEvents + events <= 2 * this.maxEventsPerCommit;
  }

  write(batch: IngestBatch): Promise<IngestOutcome> {
    return new Promise((resolve, reject) => {
      const events = batch.handedOver?.events ?? batch.processes.reduce((sum, process) => sum + process.eventCount, 0);
      this.queue.push({ batch, events, resolve, reject });
      this.queuedEvents += events;
      this.running ??= this.drain();
    });
  }

  /** Resolves when everything written so far is committed (used at shutdown). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
    await this.lastCommit;
  }

  private async drain(): Promise<void> {
    // Let the uploads already received join this commit.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const group = this.takeGroup();
      const committed = this.store.commit(group.map((p) => p.batch)).then(
        (outcomes) => group.forEach((pending, i) => pending.resolve(outcomes[i]!)),
        (error: unknown) => group.forEach((pending) => pending.reject(error)),
      );
      this.lastCommit = committed;
      await (this.store.readyForNext?.() ?? committed);
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
    this.queuedEvents -= events;
    return this.queue.splice(0, count);
  }
}
