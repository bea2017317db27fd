/** What the request thread and the event writer's thread say to each other. */
import type { MessagePort } from 'node:worker_threads';
import type { WorkerReply } from '../../db/worker-threads.js';
import type { PartitionReply, PartitionRequest } from '../partitions/partitions.store.js';
import type { IngestBatch, IngestOutcome } from '../../ingest/event-store.js';

export type WriterRequest =
  | { id: number; kind: 'commit'; batches: readonly IngestBatch[] }
  | { id: number; kind: 'countRejection'; sensorId: number; counters: ReadonlyMap<string, number> }
  | { id: number; kind: 'partition'; request: PartitionRequest }
  /** A port on which another thread hands over prepared batches (HandedOverBatch messages). */
  | { id: number; kind: 'handOverPort'; port: MessagePort }
  | { id: number; kind: 'dropHandedOver'; refs: readonly string[] }
  | { id: number; kind: 'close' };

/** The PostgreSQL writer's: partitions change by DDL on any connection, so they stay on the request thread. */
export type PostgresWriterRequest =
  | Exclude<WriterRequest, { kind: 'partition' | 'handOverPort' | 'dropHandedOver' }>
  | { id: number; kind: 'ready' };

export interface WriterReply extends WorkerReply {
  outcomes?: IngestOutcome[];
  partition?: PartitionReply;
  /** After a drop: batches still held (tests check that none is left behind). */
  handOversHeld?: number;
}
