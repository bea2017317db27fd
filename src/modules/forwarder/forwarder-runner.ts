/**
 * Runs every enabled forwarder output on one server at a time, each under its own job lease
 * (src/jobs/leased-jobs.ts, ADR 0022): the server that claims `forwarder-output-<id>` keeps it,
 * renewing the lease, and delivers batch after batch from the output's cursors until the output
 * is removed or disabled or this server stops; a server that dies loses the lease within a
 * minute and another takes the output over from its cursors. Reading committed records after
 * the fact, the forwarder never holds up ingest (docs/adr/0024-forwarder-cursors.md).
 */
import { performance } from 'node:perf_hooks';
import type { JobScheduler, ScheduledJob } from '../../jobs/leased-jobs.js';
import type { ForwarderStore, OutputRecord } from './forwarder.store.js';
import { buildOutput, eventsOf, outputSources, type SourceSet } from './forwarder-outputs.js';
import type { ForwardSource, Position, SourceName } from './forwarder-sources.js';
import { describeError, type ForwardOutput } from './outputs/output.js';

export interface ForwarderRunnerOptions {
  pollMs: number;
  batchSize: number;
  horizonMs: number;
  /** Where file outputs write (forwarderFileDir). */
  fileDir: string;
  /**
   * The most of its time a running output spends delivering while it is behind (0–1): after each
   * batch it rests so long that its batches take at most this share, leaving the rest to ingest.
   */
  maxBusyShare: number;
  now?: () => number;
  onError?: (output: string, error: unknown) => void;
}

/** The longest wait between retries of an output that keeps failing. */
const MAX_BACKOFF_MS = 30_000;
/** Batches one source delivers before the output's next source has its turn. */
const BATCHES_PER_TURN = 20;

export class ForwarderRunner {
  private readonly scheduled = new Map<number, ScheduledJob>();
  private readonly wakers = new Set<() => void>();
  private syncTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly now: () => number;

  constructor(
    private readonly store: ForwarderStore,
    private readonly sources: SourceSet,
    private readonly jobs: JobScheduler,
    private readonly options: ForwarderRunnerOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

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
    for (const wake of this.wakers) wake();
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
    let current: { record: OutputRecord; output: ForwardOutput; sources: [SourceName, ForwardSource][] } | undefined;
    const cursors = new Map<string, Position>();
    let failures = 0;
    try {
      while (!this.stopped) {
        const record = await this.store.get(id);
        if (record === undefined || !record.enabled) return;
        if (current === undefined || current.record.updatedMs !== record.updatedMs) {
          await current?.output.close();
          current = { record, output: buildOutput(record, this.options.fileDir), sources: outputSources(eventsOf(record), this.sources) };
          cursors.clear();
          for (const cursor of await this.store.cursors(id)) cursors.set(cursor.source, cursor.position);
        }
        let delivered: boolean;
        try {
          delivered = await this.turn(current.record, current.output, current.sources, cursors);
          failures = 0;
        } catch (error) {
          failures++;
          this.options.onError?.(record.name, error);
          delivered = false;
        }
        // Caught up, or failing: wait (longer after each failure in a row) before looking again.
        if (!delivered) await this.sleep(failures === 0 ? this.options.pollMs : Math.min(this.options.pollMs * 2 ** failures, MAX_BACKOFF_MS));
      }
    } finally {
      await current?.output.close();
    }
  }

  /** One turn over the output's sources; resolves whether anything was read. */
  private async turn(record: OutputRecord, output: ForwardOutput, sources: [SourceName, ForwardSource][], cursors: Map<string, Position>): Promise<boolean> {
    let readAny = false;
    for (const [name, source] of sources) {
      for (let i = 0; i < BATCHES_PER_TURN && !this.stopped; i++) {
        const after = cursors.get(name) ?? source.start(record.createdMs);
        const began = performance.now();
        const batch = await source.read(after, this.now() - this.options.horizonMs, this.options.batchSize);
        if (batch === undefined) break;
        readAny = true;
        if (batch.records.length > 0) {
          try {
            await output.send(batch.records);
          } catch (error) {
            await this.store.failed(record.id, name, after, describeError(error), this.now());
            throw error;
          }
        }
        await this.store.advance(record.id, name, batch.last, batch.records.length, this.now());
        cursors.set(name, batch.last);
        await this.rest(performance.now() - began);
      }
    }
    return readAny;
  }

  /** After a batch that took `busyMs`: the pause that keeps this output within its busy share. */
  private async rest(busyMs: number): Promise<void> {
    const share = this.options.maxBusyShare;
    if (share < 1) await this.sleep(busyMs * (1 / share - 1));
  }

  private sleep(ms: number): Promise<void> {
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
}
