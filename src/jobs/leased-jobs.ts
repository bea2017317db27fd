/**
 * Scheduled jobs that run once across servers, each under its lease (job-leases.store.ts,
 * docs/adr/0022-jobs-across-servers.md). Every server schedules every job; at each check the
 * server that claims the lease runs the job and the others skip it. While the job runs, its
 * holder renews the lease every third of the lease time; a holder that dies stops renewing, and
 * the first check of another server after the lease runs out takes the job over.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { JobLeasesStore } from './job-leases.store.js';

/** What a module needs to run its scheduled work once across servers. */
export interface JobScheduler {
  /**
   * Runs `work` now unless a server (this one included) is running job `name` or began its last
   * run less than `everyMs` ago. Resolves whether it ran; a failure of `work` is reported and still
   * counts as the period's run.
   */
  once(name: string, everyMs: number, work: () => Promise<void>): Promise<boolean>;
  /**
   * Runs job `name` once every `everyMs` across servers, the first time as soon as it is due,
   * or, with `immediately: false`, a period after the first server scheduled it.
   */
  every(name: string, everyMs: number, work: () => Promise<void>, options?: { immediately?: boolean }): ScheduledJob;
}

export interface ScheduledJob {
  /** Stops this server's checks; a run under way finishes. */
  cancel(): void;
}

export interface LeasedJobsOptions {
  /** How long a claimed lease lasts without renewal: the longest a dead holder's job waits. */
  leaseMs: number;
  /** Names this server in the leases it holds; unique per process by default. */
  holder?: string;
  now?: () => number;
  /** Failures of a job's work or of the lease itself (the next check tries again). */
  onError?: (job: string, error: unknown) => void;
}

export function processHolderName(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

export class LeasedJobs implements JobScheduler {
  readonly holder: string;
  private readonly now: () => number;
  private readonly running = new Map<string, Promise<boolean>>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly leases: JobLeasesStore, private readonly options: LeasedJobsOptions) {
    this.holder = options.holder ?? processHolderName();
    this.now = options.now ?? Date.now;
  }

  once(name: string, everyMs: number, work: () => Promise<void>): Promise<boolean> {
    // A job this server is running already is not claimed twice: the store would refuse anyway.
    if (this.running.has(name)) return Promise.resolve(false);
    const run = this.claimAndRun(name, everyMs, work).finally(() => this.running.delete(name));
    this.running.set(name, run);
    return run;
  }

  every(name: string, everyMs: number, work: () => Promise<void>, { immediately = true } = {}): ScheduledJob {
    // Checked at least once per lease, so that a dead holder's job moves within about a lease.
    const checkMs = Math.min(everyMs, this.options.leaseMs);
    const scheduled = immediately ? Promise.resolve() : this.leases.schedule(name, this.now()).catch((error: unknown) => this.options.onError?.(name, error));
    const check = () => void scheduled.then(() => this.once(name, everyMs, work));
    const timer = setInterval(check, checkMs);
    timer.unref();
    this.timers.add(timer);
    if (immediately) setImmediate(check);
    return {
      cancel: () => {
        clearInterval(timer);
        this.timers.delete(timer);
      },
    };
  }

  /** Stops every schedule and waits for the runs under way. */
  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers.clear();
    await Promise.all(this.running.values());
  }

  private async claimAndRun(name: string, everyMs: number, work: () => Promise<void>): Promise<boolean> {
    const { leaseMs } = this.options;
    const startedMs = this.now();
    let claimed: boolean;
    try {
      claimed = await this.leases.claim(name, this.holder, startedMs, leaseMs, everyMs);
    } catch (error) {
      this.options.onError?.(name, error);
      return false;
    }
    if (!claimed) return false;
    const renewal = setInterval(() => {
      this.leases.renew(name, this.holder, this.now() + leaseMs).catch((error: unknown) => this.options.onError?.(name, error));
    }, leaseMs / 3);
    renewal.unref();
    try {
      await work();
    } catch (error) {
      this.options.onError?.(name, error);
    } finally {
      clearInterval(renewal);
      await this.leases.finish(name, this.holder, startedMs).catch((error: unknown) => this.options.onError?.(name, error));
    }
    return true;
  }
}
