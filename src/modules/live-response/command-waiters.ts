/**
 * Requests waiting for a command to finish (GET …/command/{id}?wait=true), woken when the
 * sensor's answer is recorded instead of polling the store. With several servers on one
 * database the answer may be recorded on another server than the one the analyst waits on:
 * `notices` carries the news between servers (LISTEN/NOTIFY on PostgreSQL), and a waiter looks at
 * the store again every `pollMs` whatever happens, should a notice be lost
 * (docs/adr/0022-jobs-across-servers.md).
 */
export interface CommandNotices {
  /** Tells every server that the command finished; each wakes its waiters (`finished`). */
  publish(commandId: number): Promise<void>;
}

export interface CommandWaitersOptions {
  notices?: CommandNotices | undefined;
  /** The longest a waiter goes without reading the store again. */
  pollMs?: number | undefined;
}

const DEFAULT_POLL_MS = 1_000;

export class CommandWaiters {
  readonly pollMs: number;
  private readonly waiting = new Map<number, Set<() => void>>();

  constructor(private readonly options: CommandWaitersOptions = {}) {
    this.pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  }

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

  /** The command finished, here or on another server: wakes this server's waiters. */
  finished(commandId: number): void {
    for (const wake of [...(this.waiting.get(commandId) ?? [])]) wake();
  }

  /** The command's answer was recorded on this server: wakes its waiters here and on the others. */
  async finishedHere(commandId: number): Promise<void> {
    this.finished(commandId);
    // A notice that cannot be sent leaves the other servers' waiters to their next poll.
    await this.options.notices?.publish(commandId).catch(() => undefined);
  }
}
