/**
 * The PostgreSQL event store run on its own thread (event-writer.postgres.worker.ts), so the
 * request thread only parses, prepares and routes uploads. Commits still overlap there: the next
 * group is handed over as soon as the writer's store can take it (readyForNext), and a commit
 * resolves only after its transaction committed. A writer that died fails every call.
 */
import { WorkerClient } from '../../db/worker-threads.js';
import type { EventStore, IngestBatch, IngestOutcome } from '../../ingest/event-store.js';
import type { PostgresWriterRequest, WriterReply } from './event-writer.messages.js';
import type { PostgresWriterInit } from './event-writer.postgres.worker.js';

export class ThreadedPostgresEventStore implements EventStore {
  private readonly writer: WorkerClient<PostgresWriterRequest, WriterReply>;

  /** `heapLimitMb`: config ingestWriterHeapMb. */
  constructor(init: PostgresWriterInit, heapLimitMb?: number) {
    this.writer = new WorkerClient(import.meta.url, 'event-writer.postgres', init, { heapLimitMb });
  }

  async commit(batches: readonly IngestBatch[]): Promise<IngestOutcome[]> {
    return (await this.writer.request({ kind: 'commit', batches })).outcomes!;
  }

  /**
   * Never rejects: a writer that died fails the commits themselves, and a rejection here would
   * leave the batch writer's drain loop stuck instead.
   */
  async readyForNext(): Promise<void> {
    await this.writer.request({ kind: 'ready' }).catch(() => undefined);
  }

  async countRejection(sensorId: number, counters: ReadonlyMap<string, number>): Promise<void> {
    await this.writer.request({ kind: 'countRejection', sensorId, counters });
  }

  close(): Promise<void> {
    return this.writer.close();
  }
}
