/**
 * An event upload, start to finish: decode → validate → normalize → ingress filter and prepare
 * (prepare.ts) → segment and store (the event store's transaction, on the writer) → the
 * acknowledgement, sent only after the commit.
 */
import type { SensorIdentity } from '../domain/sensor-identity.js';
import { threadId, type MessagePort } from 'node:worker_threads';
import type { EventStore, HandedOverBatch, IngestBatch, IngestOutcome } from './event-store.js';
import type { BatchWriter } from './batch-writer.js';
import type { EventsReply, SensorEvent } from './event.schemas.js';
import { decompress, parseBatch } from './decode.js';
import { EventLoopTurns } from './event-loop-turns.js';
import type { CompiledIngressFilter } from './ingress-filter.js';
import type { ProcessCounts } from './ingress-filter-metrics.js';
import type { FilterGate } from './ingress-gate.js';
import { EventPreparer, type PreparedEvents } from './prepare.js';
import { normalizeEvent } from './normalize.js';
import { IngestRejection, counter, type BatchRejectionReason } from './rejection.js';
import { validateEvents, type EventRejection } from './validate.js';

/** The ingress filters' service, as the pipeline uses it. */
export interface IngressFilterSource {
  /** The filters as they stand now (cached until a filter changes). */
  compiled(): Promise<readonly CompiledIngressFilter[]>;
  /** New processes each filter measured and matched, for its hit_rate. */
  recordProcessCounts(counts: ReadonlyMap<string, ProcessCounts>): void;
}

/** Told of every upload the event store committed (banning counts its processblock events). */
export interface BlockRecorder {
  recordBlocks(sensor: SensorIdentity, events: readonly SensorEvent[]): Promise<void>;
}

export class IngestPipeline {
  private readonly preparer: EventPreparer;
  private readonly commitListeners: (() => void)[] = [];
  /** Uploads are parsed and prepared one per event-loop turn. */
  private readonly turns = new EventLoopTurns();
  private handOverPort: MessagePort | undefined;
  private lastHandOver = 0;

  constructor(
    private readonly writer: BatchWriter,
    private readonly store: EventStore,
    private readonly gate: FilterGate,
    private readonly filters: IngressFilterSource,
    private readonly maxDecodedBytes: number,
    private readonly blocks: BlockRecorder,
  ) {
    this.preparer = new EventPreparer(gate);
  }

  async upload(sensor: SensorIdentity, raw: Buffer, contentEncoding: string | undefined): Promise<EventsReply> {
    const sent = await this.readAndSend(sensor, raw, contentEncoding);
    const outcome = await this.committed(sensor, sent);
    return { ...outcome, rejected: outcome.duplicate ? [] : sent.rejected };
  }

  /**
   * Events decoded at another edge (Sysmon) for a sensor without a protocol of its own: checked
   * like uploaded ones, then stored under the sequence `nextSequence` gives, drawn only once the
   * batch goes to the writer so that batches of one sensor take their sequences in commit order.
   * `counters`: what the edge counted (its own rejections), recorded with the batch.
   */
  async append(sensor: SensorIdentity, events: readonly unknown[], counters: Map<string, number>, nextSequence: () => number): Promise<EventsReply> {
    const sent = await this.prepareAndSend(sensor, events, counters, nextSequence);
    return { ...(await this.committed(sensor, sent)), rejected: sent.rejected };
  }

  /**
   * Whether events may skip this thread: prepared elsewhere and handed to the store's writer
   * (EventStore.handOvers), which is the work append() does only while no ingress filter is in force.
   */
  async takesHandedOver(): Promise<boolean> {
    return this.store.handOvers !== undefined && (await this.filters.compiled()).length === 0;
  }

  /**
   * A slice of events another thread validated, prepared and handed to the store's writer under
   * `ref`, stored as append() would store them. `counters`: the edge's and validation's. No ban
   * counts: only Sysmon events are handed over, and none of them is a processblock.
   */
  async appendHandedOver(sensor: SensorIdentity, handedOver: { ref: string; events: number }, counters: Map<string, number>, nextSequence: () => number) {
    const sequence = nextSequence();
    const outcome = await this.writer.write({ sensor, sequence, processes: [], filtered: 0, counters, handedOver });
    if (!outcome.duplicate) for (const listener of this.commitListeners) listener();
    return { sequence, duplicate: outcome.duplicate, accepted: outcome.accepted, filtered: outcome.filtered };
  }

  /** Lets go of handed-over batches that will not be written (their request failed, or was a duplicate). */
  async dropHandedOver(refs: readonly string[]): Promise<void> {
    await this.store.handOvers?.drop(refs);
  }

  /** The body decoded, in a turn of its own, then prepareAndSend(); a batch refused whole is counted here. */
  private async readAndSend(sensor: SensorIdentity, raw: Buffer, contentEncoding: string | undefined): Promise<SentBatch> {
    let batch;
    try {
      const text = await decompress(raw, contentEncoding?.trim().toLowerCase(), this.maxDecodedBytes);
      await this.turns.take();
      batch = parseBatch(text);
    } catch (error) {
      if (error instanceof IngestRejection) await this.countRejectedBatch(sensor.id, error.batchReason);
      throw error;
    }
    const { sequence } = batch;
    return this.prepareAndSend(sensor, batch.events, new Map(), () => sequence);
  }

  /**
   * Everything up to handing the batch to the group commit, in a call that returns without
   * waiting for the commit: an async function keeps every variable of its frame while it awaits
   * (V8 drops none, dead or not), so a frame that held the parsed or prepared events across the
   * wait for the commit (hundreds of milliseconds under full ingest) kept them alive through the
   * scavenges, which copied and promoted them: the request thread's longest pauses
   * (docs/adr/0042). What this answers is all the rest needs. The hand-over and the write run in
   * one turn, so the writer's queue the hand-over is judged by is the one the batch joins.
   */
  private async prepareAndSend(sensor: SensorIdentity, events: readonly unknown[], counters: Map<string, number>, sequenceOf: () => number): Promise<SentBatch> {
    const { valid, rejected } = validateEvents(events);
    for (const event of valid) normalizeEvent(event);
    this.gate.use(await this.filters.compiled());
    const prepared = this.preparer.prepare({ sensorId: sensor.id, groupId: sensor.groupId, osType: sensor.osType }, valid);
    this.filters.recordProcessCounts(this.gate.takeCounts());
    const sequence = sequenceOf();
    const outcome = this.writer.write({ sensor, sequence, ...this.handOver(prepared), counters: countRejections(rejected, counters) });
    return { sequence, outcome, blocks: valid.filter((event) => event.type === 'processblock'), rejected };
  }

  private async committed(sensor: SensorIdentity, sent: SentBatch): Promise<Omit<EventsReply, 'rejected'>> {
    const outcome = await sent.outcome;
    if (!outcome.duplicate) {
      for (const listener of this.commitListeners) listener();
      await this.blocks.recordBlocks(sensor, sent.blocks);
    }
    return { sequence: sent.sequence, duplicate: outcome.duplicate, accepted: outcome.accepted, filtered: outcome.filtered };
  }

  /**
   * The prepared events, sent to the store's writer thread now when it takes hand-overs, so that
   * what the batch's commit needs is a reference. Held here until the commit (hundreds of
   * milliseconds under full ingest), every prepared batch outlived the young generation and was
   * copied by each scavenge, then promoted and collected by a full collection: the request
   * thread's largest pauses (docs/adr/0042). A backlog beyond the writer's room waits here.
   */
  private handOver(prepared: PreparedEvents): PreparedEvents & Pick<IngestBatch, 'handedOver'> {
    const events = prepared.processes.reduce((sum, process) => sum + process.eventCount, 0);
    if (!this.store.handOvers || !this.writer.mayHandOver(events)) return prepared;
    this.handOverPort ??= this.store.handOvers.port();
    const ref = `${threadId}.upload.${++this.lastHandOver}`;
    this.handOverPort.postMessage({ ref, processes: prepared.processes } satisfies HandedOverBatch);
    return { processes: [], filtered: prepared.filtered, handedOver: { ref, events } };
  }

  /** Told after each upload's events are committed (the detection matcher then checks them). */
  onCommitted(listener: () => void): void {
    this.commitListeners.push(listener);
  }

  /** Counts a batch refused before it could be read (also for bodies the HTTP layer refused as too large). */
  countRejectedBatch(sensorId: number, reason: BatchRejectionReason): Promise<void> {
    return this.store.countRejection(sensorId, new Map([[counter.batchRejected(reason), 1]]));
  }

  flush(): Promise<void> {
    return this.writer.flush();
  }
}

/** An upload on its way to the group commit: what its answer needs, and nothing else. */
interface SentBatch {
  sequence: number;
  outcome: Promise<IngestOutcome>;
  /** Its processblock events, for the ban counts once committed. */
  blocks: SensorEvent[];
  rejected: EventRejection[];
}

function countRejections(rejected: readonly EventRejection[], counters: Map<string, number>): Map<string, number> {
  for (const { reason } of rejected) {
    const name = counter.eventRejected(reason);
    counters.set(name, (counters.get(name) ?? 0) + 1);
  }
  return counters;
}
