/** Why the ingest pipeline refused something. Every reason is counted per sensor. */
import { DomainError } from '../domain/errors.js';

export type BatchRejectionReason = 'malformed_json' | 'bad_encoding' | 'invalid_batch' | 'batch_too_large' | 'unsupported_media_type';
export type EventRejectionReason = 'unknown_event_type' | 'invalid_event';

/** A whole batch refused: nothing of it is stored. 413 for size, 400 otherwise. */
export class IngestRejection extends DomainError {
  constructor(
    readonly batchReason: BatchRejectionReason,
    message: string,
  ) {
    super(batchReason === 'batch_too_large' ? 'payload_too_large' : 'invalid_request', message, batchReason);
    this.name = 'IngestRejection';
  }
}

/** Counter names, as shown at the ingest statistics endpoints. */
export const counter = {
  batchesAccepted: 'batches_accepted',
  batchesDuplicate: 'batches_duplicate',
  batchRejected: (reason: BatchRejectionReason) => `batches_rejected.${reason}`,
  eventsAccepted: 'events_accepted',
  eventsFiltered: 'events_filtered',
  eventRejected: (reason: EventRejectionReason) => `events_rejected.${reason}`,
  sequenceGaps: 'sequence_gaps',
  sequencesMissing: 'sequences_missing',
} as const;
