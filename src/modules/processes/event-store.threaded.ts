/**
 * The embedded event store run on its own thread (event-writer.worker.ts). To the pipeline it is
 * an EventStore like any other: a commit resolves once the writer thread has committed it. A
 * writer that died fails every call (the uploads get a 5xx and the sensors retry against a
 * restarted server). Partition changes (docs/adr/0009-partitions.md) run there too.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { WorkerClient } from '../../db/worker-threads.js';
import type { PartitionReply, PartitionRequest, PartitionWriter } from '../partitions/partitions.store.js';
import type { EventStore, IngestBatch, IngestOutcome, SegmentRules } from '../../ingest/event-store.js';
import type { WriterReply, WriterRequest } from './event-writer.messages.js';
import type { WriterInit } from './event-writer.worker.js';

export class ThreadedEventStore implements EventStore, PartitionWriter {
  private readonly writer: WorkerClient<WriterRequest, WriterReply>;

  /** `heapLimitMb`: config ingestWriterHeapMb. */
  constructor(
    file: string, rules: SegmentRules,
    options: Pick<WriterInit, 'checkpointIntervalMs' | 'lockWait' | 'pageCacheMb' | 'walLimitMb'> & { heapLimitMb?: number } = {},
  ) {
    const { heapLimitMb, ...init } = options;
    this.writer = new WorkerClient(import.meta.url, 'event-writer', { file, rules, ...init } satisfies WriterInit, { heapLimitMb });
  }

  /** The writer thread's heap limit in force (config ingestWriterHeapMb). */
  get writerHeapLimitMb(): number | undefined {
    return this.writer.heapLimitMb;
  }

  async commit(batches: readonly IngestBatch[]): Promise<IngestOutcome[]> {
    return (await this.writer.request({ kind: 'commit', batches })).outcomes!;
  }

  /** Batches prepared on other threads reach the writer without passing through this one (ADR 0035). */
  readonly handOvers = {
    port: (): MessagePort => {
      const { port1, port2 } = new MessageChannel();
      // Sent ahead of any commit naming a batch from this port; if the writer is gone, so are its commits.
      this.writer.request({ kind: 'handOverPort', port: port2 }, [port2]).catch(() => undefined);
      return port1;
    },
    drop: async (refs: readonly string[]): Promise<void> => {
      await this.dropHandedOver(refs);
    },
  };

  /** Drops refs never committed; answers how many batches the writer still holds. */
  async dropHandedOver(refs: readonly string[]): Promise<number> {
    return (await this.writer.request({ kind: 'dropHandedOver', refs })).handOversHeld!;
  }

  async countRejection(sensorId: number, counters: ReadonlyMap<string, number>): Promise<void> {
    await this.writer.request({ kind: 'countRejection', sensorId, counters });
  }

  /** Partition changes run on the writer's thread, in order with the commits. */
  async partition(request: PartitionRequest): Promise<PartitionReply> {
    return (await this.writer.request({ kind: 'partition', request })).partition!;
  }

  close(): Promise<void> {
    return this.writer.close();
  }
}
