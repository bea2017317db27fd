/**
 * How many of this process's connections are waiting for SQLite's write lock, counted in memory
 * that every thread sees (a SharedArrayBuffer handed to the worker threads in their workerData).
 *
 * SQLite keeps no queue for its write lock: whoever asks first after it is released gets it. The
 * event writer commits back to back under full-rate ingest and asks again within microseconds of
 * its own commit, while a connection that waits on a timer asks every few milliseconds; such a
 * connection could wait for seconds and then fail. So the event writer, before each transaction,
 * lets the connections already waiting take the lock first, for a bounded time (ADR 0013).
 */
const WAITING = 0;
/** Waits ended (lock taken, or given up) since the start; wraps around, compared by difference. */
const ENDED = 1;

export class LockWaiters {
  private readonly counts: Int32Array;

  /** A new count, or (in a worker thread) the one whose `buffer` the request thread passed on. */
  constructor(readonly buffer = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT)) {
    this.counts = new Int32Array(buffer);
  }

  /** A connection found the lock taken and waits for it. */
  started(): void {
    Atomics.add(this.counts, WAITING, 1);
  }

  /** A waiting connection took the lock, or gave up. */
  ended(): void {
    Atomics.sub(this.counts, WAITING, 1);
    Atomics.add(this.counts, ENDED, 1);
    Atomics.notify(this.counts, ENDED);
  }

  /**
   * Blocks this thread until the connections waiting now have ended their wait, or `boundMs` has
   * passed. Call it without holding the lock, and only on a thread that may block (a worker).
   */
  letWaitingGoFirst(boundMs: number): void {
    const waiting = Atomics.load(this.counts, WAITING);
    if (waiting <= 0) return;
    const start = Atomics.load(this.counts, ENDED);
    const deadline = performance.now() + boundMs;
    for (;;) {
      const ended = Atomics.load(this.counts, ENDED);
      const left = deadline - performance.now();
      if (((ended - start) | 0) >= waiting || Atomics.load(this.counts, WAITING) <= 0 || left <= 0) return;
      Atomics.wait(this.counts, ENDED, ended, left);
    }
  }
}
