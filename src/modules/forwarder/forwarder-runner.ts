/**
 * Runs every enabled forwarder output on one server at a time, each under its own job lease
 * (src/jobs/leased-jobs.ts, ADR 0022): the server that claims `forwarder-output-<id>` keeps it,
 * renewing the lease, and has the forwarder's thread deliver turn after turn from the output's
 * cursors until the output is removed or disabled or this server stops; a server that dies
 * loses the lease within a minute and another takes the output over from its cursors. Reading
 * committed records after the fact, on a thread of its own, the forwarder never holds up ingest
 * (docs/adr/0024-forwarder-cursors.md, docs/adr/0036-forwarder-thread.md).
 */
import type { JobScheduler, ScheduledJob } from '../../jobs/leased-jobs.js';
import type { ForwarderStore, OutputRecord } from './forwarder.store.js';
import type { Turns } from './forwarder-turns.threaded.js';
import { Pauses } from './pauses.js';

export interface ForwarderRunnerOptions {
  pollMs: number;
  onError?: (output: string, error: unknown) => void;
}

/** The longest wait between retries of an output that keeps failing. */
const MAX_BACKOFF_MS = 30_000;

export class ForwarderRunner {
  private readonly scheduled = new Map<number, ScheduledJob>();
  private readonly pauses = new Pauses();
  private syncTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly store: ForwarderStore,
    private readonly turns: Turns,
    private readonly jobs: JobScheduler,
    private readonly options: ForwarderRunnerOptions,
  ) {}

  /** Schedules the saved outputs, and looks again every few polls for outputs saved on any server. */
  start(): void {
    void this.sync();
    this.syncTimer = setInterval(() => void this.sync(), Math.max(this.options.pollMs * 5, 1000));
    this.syncTimer.unref();
  }

  /** Ends every output's run on this server; call before the job scheduler stops. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.syncTimer);
    for (const job of this.scheduled.values()) job.cancel();
    this.scheduled.clear();
    this.turns.stop();
    this.pauses.wakeAll();
  }

  /** Ends the forwarder's thread; call once the job scheduler has stopped. */
  close(): Promise<void> {
    return this.turns.close();
  }

  /** Takes up outputs saved or enabled since the last look (a change on this server calls it at once). */
  async sync(): Promise<void> {
    if (this.stopped) return;
    let outputs: OutputRecord[];
    try {
      outputs = await this.store.list();
    } catch (error) {
      this.options.onError?.('forwarder', error);
      return;
    }
    const wanted = new Set(outputs.filter((output) => output.enabled).map((output) => output.id));
    for (const [id, job] of this.scheduled) {
      if (!wanted.has(id)) {
        job.cancel();
        this.scheduled.delete(id);
      }
    }
    for (const id of wanted) {
      if (this.scheduled.has(id) || this.stopped) continue;
      this.scheduled.set(id, this.jobs.every(`forwarder-output-${id}`, this.options.pollMs, () => this.run(id)));
    }
  }

  /** Delivers from output `id`'s cursors for as long as this server holds it. */
  private async run(id: number): Promise<void> {
    let failures = 0;
    try {
      while (!this.stopped) {
        const record = await this.store.get(id);
        if (record === undefined || !record.enabled) return;
        let delivered: boolean;
        try {
          delivered = await this.turns.turn(record);
          failures = 0;
        } catch (error) {
          failures++;
          this.options.onError?.(record.name, error);
          delivered = false;
        }
        // Caught up, or failing: wait (longer after each failure in a row) before looking again.
        if (!delivered) await this.pauses.sleep(failures === 0 ? this.options.pollMs : Math.min(this.options.pollMs * 2 ** failures, MAX_BACKOFF_MS));
      }
    } finally {
      // Another server may hold the output next: this one reads its cursors again when it is back.
      await this.turns.release(id).catch(() => undefined);
    }
  }
}
