/** What the request thread and the event writer's thread say to each other. */
import type { IngestBatch, IngestOutcome } from './event-store.js';

export type WriterRequest =
  | { id: number; kind: 'commit'; batches: readonly IngestBatch[] }
  | { id: number; kind: 'countRejection'; sensorId: number; counters: ReadonlyMap<string, number> }
  | { id: number; kind: 'close' };

export interface WriterReply {
  id: number;
  outcomes?: IngestOutcome[];
  /** The request failed; nothing of it was stored. */
  error?: WriterError;
}

export interface WriterError {
  message: string;
  code: string | undefined;
}
