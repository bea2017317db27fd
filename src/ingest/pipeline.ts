/**
 * An event upload, start to finish: decode → validate → normalize → ingress filter and prepare
 * (prepare.ts) → segment and store (the event store's transaction, on the writer) → the
 * acknowledgement, sent only after the commit.
 */
import type { SensorIdentity } from '../domain/sensor-identity.js';
import { threadId, type MessagePort } from 'node:worker_threads';
import type { EventStore, HandedOverBatch, IngestBatch } from './event-store.js';
import type { BatchWriter } from './batch-writer.js';
import type { EventsReply, SensorEvent } from './event.schemas.js';
import { decodeBatch } from './decode.js';
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
    let batch;
    try {
      batch = await decodeBatch(raw, contentEncoding, this.maxDecodedBytes);
    } catch (error) {
      if (error instanceof IngestRejection) await this.countRejectedBatch(sensor.id, error.batchReason);
      throw error;
    }
    const { valid, rejected } = validateEvents(batch.events);
    const outcome = await this.commitEvents(sensor, () => batch.sequence, valid, countRejections(rejected, new Map()));
    return { ...outcome, rejected: outcome.duplicate ? [] : rejected };
  }

  /**
   * Events decoded at another edge (Sysmon) for a sensor without a protocol of its own: checked
   * like uploaded ones, then stored under the sequence `nextSequence` gives, drawn only once the
   * batch goes to the writer so that batches of one sensor take their sequences in commit order.
   * `counters`: what the edge counted (its own rejections), recorded with the batch.
   */
  async append(sensor: SensorIdentity, events: readonly unknown[], counters: Map<string, number>, nextSequence: () => number): Promise<EventsReply> {
    const { valid, rejected } = validateEvents(events);
    const outcome = await this.commitEvents(sensor, nextSequence, valid, countRejections(rejected, counters));
    return { ...outcome, rejected };
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

  private async commitEvents(sensor: SensorIdentity, sequenceOf: () => number, valid: SensorEvent[], counters: Map<string, number>): Promise<Omit<EventsReply, 'rejected'>> {
    for (const event of valid) normalizeEvent(event);
    this.gate.use(await this.filters.compiled());
    const prepared = this.preparer.prepare({ sensorId: sensor.id, groupId: sensor.groupId, osType: sensor.osType }, valid);
    this.filters.recordProcessCounts(this.gate.takeCounts());
    // Only these are needed once committed. Holding the whole parsed batch until then (hundreds of
    // milliseconds) let every event outlive the young generation and be collected the costly way.
    const blocks = valid.filter((event) => event.type === 'processblock');
    const sequence = sequenceOf();
    const outcome = await this.writer.write({ sensor, sequence, ...this.handOver(prepared), counters });
    if (!outcome.duplicate) {
      for (const listener of this.commitListeners) listener();
      await this.blocks.recordBlocks(sensor, blocks);
    }
    return { sequence, duplicate: outcome.duplicate, accepted: outcome.accepted, filtered: outcome.filtered };
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

function countRejections(rejected: readonly EventRejection[], counters: Map<string, number>): Map<string, number> {
  for (const { reason } of rejected) {
    const name = counter.eventRejected(reason);
    counters.set(name, (counters.get(name) ?? 0) + 1);
  }
  return counters;
}
