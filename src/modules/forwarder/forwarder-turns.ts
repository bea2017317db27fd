/**
 * The delivering part of the forwarder: for one output, a turn over its sources reads a batch
 * after each cursor, sends it, and only then moves the cursor. It runs on the forwarder's thread
 * (forwarder-turns.worker.ts), with its own database connection, so that reading, decoding,
 * encoding and the cursor writes take neither the request thread nor its place in the queue
 * for the SQLite write lock (docs/adr/0036-forwarder-thread.md).
 */
import { performance } from 'node:perf_hooks';
import type { ForwarderStore, OutputRecord } from './forwarder.store.js';
import { buildOutput, eventsOf, outputSources, type SourceSet } from './forwarder-outputs.js';
import type { ForwardSource, Position, SourceBatch, SourceName } from './forwarder-sources.js';
import { describeError, type ForwardOutput } from './outputs/output.js';
import { Pauses } from './pauses.js';

export interface TurnOptions {
  batchSize: number;
  horizonMs: number;
  /** Where file outputs write (forwarderFileDir). */
  fileDir: string;
  /**
   * The most of a core the forwarder's thread takes while outputs are behind (0–1): after each
   * batch an output rests so long that the thread's work in that time (not its waits for a
   * receiver, a disk or a lock, which take no core) is at most this share, leaving ingest the rest.
   */
  maxBusyShare: number;
  now?: () => number;
}

/** Batches one source delivers before the output's next source has its turn. */
const BATCHES_PER_TURN = 20;

interface RunningOutput {
  updatedMs: number;
  output: ForwardOutput;
  sources: [SourceName, ForwardSource][];
  cursors: Map<string, Position>;
}

export class OutputTurns {
  private readonly running = new Map<number, RunningOutput>();
  private readonly pauses = new Pauses();
  private stopped = false;
  private readonly now: () => number;

  constructor(private readonly store: ForwarderStore, private readonly sources: SourceSet, private readonly options: TurnOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * One turn over the output's sources; resolves whether anything was read. A failed delivery is
   * recorded on its cursor and thrown; the cursors of the batches delivered before it stay moved.
   */
  async turn(record: OutputRecord): Promise<boolean> {
    const running = await this.prepared(record);
    let readAny = false;
    for (const [name, source] of running.sources) {
      if (await this.deliverFrom(record, running, name, source)) readAny = true;
    }
    return readAny;
  }

  /** Closes output `id`: the next turn builds it afresh and reads its cursors again (another server may have moved them). */
  async release(id: number): Promise<void> {
    const running = this.running.get(id);
    this.running.delete(id);
    await running?.output.close();
  }

  /** Ends turns at their next batch and stops resting. */
  stop(): void {
    this.stopped = true;
    this.pauses.wakeAll();
  }

  async close(): Promise<void> {
    this.stop();
    await Promise.all([...this.running.keys()].map((id) => this.release(id)));
  }

  private async prepared(record: OutputRecord): Promise<RunningOutput> {
    const known = this.running.get(record.id);
    if (known !== undefined && known.updatedMs === record.updatedMs) return known;
    await this.release(record.id);
    const cursors = new Map<string, Position>();
    for (const cursor of await this.store.cursors(record.id)) cursors.set(cursor.source, cursor.position);
    const running = {
      updatedMs: record.updatedMs, output: buildOutput(record, this.options.fileDir),
      sources: outputSources(eventsOf(record), this.sources), cursors,
    };
    this.running.set(record.id, running);
    return running;
  }

  /**
   * Up to BATCHES_PER_TURN batches of one source. The next batch is read (and decoded) while the
   * current one is on its way, and made into text while the current one's cursor is being stored
   * (a SQLite write waits for ingest's commits): an output sends nothing of a batch before the
   * cursor of the one before is stored, so a restart still repeats at most one batch, but neither
   * wait leaves the output idle.
   */
  private async deliverFrom(record: OutputRecord, running: RunningOutput, name: SourceName, source: ForwardSource): Promise<boolean> {
    const { batchSize, horizonMs } = this.options;
    const read = (after: Position) => source.read(after, this.now() - horizonMs, batchSize);
    const start = running.cursors.get(name) ?? source.start(record.createdMs);
    let next: Promise<SourceBatch | undefined> | undefined = read(start);
    /** The cursor write of the last batch delivered; running.cursors has its position once it is done. */
    let stored = Promise.resolve();
    let readAny = false;
    try {
      for (let i = 0; i < BATCHES_PER_TURN && next !== undefined && !this.stopped; i++) {
        const began = performance.eventLoopUtilization();
        const batch: SourceBatch | undefined = await next;
        if (batch === undefined) break;
        readAny = true;
        const sending = batch.records.length > 0 ? running.output.send(batch.records, stored) : stored;
        next = i + 1 < BATCHES_PER_TURN ? read(batch.last) : undefined;
        try {
          await sending;
        } catch (error) {
          // A failed cursor write is the turn's failure; a failed delivery is recorded where the cursor stands.
          await stored;
          await this.store.failed(record.id, name, running.cursors.get(name) ?? start, describeError(error), this.now());
          throw error;
        }
        stored = this.store.advance(record.id, name, batch.last, batch.records.length, this.now())
          .then(() => void running.cursors.set(name, batch.last));
        // Handled here, awaited by the next send or below: a rejection left to wait would end the thread.
        stored.catch(() => undefined);
        await this.rest(performance.eventLoopUtilization(began).active);
      }
      await stored;
    } finally {
      // A batch read ahead and not sent is dropped: the next turn reads it again after the cursor.
      next?.catch(() => undefined);
    }
    return readAny;
  }

  /** After a batch that kept the thread busy `busyMs`: the pause that keeps it within its share. */
  private async rest(busyMs: number): Promise<void> {
    const share = this.options.maxBusyShare;
    if (share < 1 && !this.stopped) await this.pauses.sleep(busyMs * (1 / share - 1));
  }
}
