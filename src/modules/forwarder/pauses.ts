/** Pauses that a stop ends at once: the forwarder's waits between polls, retries and batches. */
export class Pauses {
  private readonly wakers = new Set<() => void>();

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }

  /** Ends every pause in progress. */
  wakeAll(): void {
    for (const wake of this.wakers) wake();
  }
}
