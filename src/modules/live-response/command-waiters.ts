/**
 * Requests waiting for a command to finish (GET …/command/{id}?wait=true), woken when the
 * sensor's answer is recorded instead of polling the store.
 */
export class CommandWaiters {
  private readonly waiting = new Map<number, Set<() => void>>();

  /** Resolves once `finished(commandId)` is called, or after `ms`. */
  wait(commandId: number, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const waiters = this.waiting.get(commandId) ?? new Set();
      this.waiting.set(commandId, waiters);
      const wake = () => {
        clearTimeout(timer);
        waiters.delete(wake);
        if (waiters.size === 0) this.waiting.delete(commandId);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, ms));
      waiters.add(wake);
    });
  }

  finished(commandId: number): void {
    for (const wake of [...(this.waiting.get(commandId) ?? [])]) wake();
  }
}
