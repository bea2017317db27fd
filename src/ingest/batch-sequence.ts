/**
 * The batch sequence rule every event store applies (event-store.ts): a batch whose sequence is
 * not above its sensor's last committed one is a duplicate and stores nothing; one that skips
 * sequences is stored and counts the gap. One function, so the two stores cannot drift. It runs
 * once per batch on the ingest hot path: it writes into the batch's own counter map and
 * allocates nothing.
 */
import { counter } from './rejection.js';

/** Counts what `sequence` after `last` means into `counters`; true when the batch is a duplicate. */
export function countSequence(sequence: number, last: number, counters: Map<string, number>): boolean {
  if (sequence <= last) {
    counters.set(counter.batchesDuplicate, 1);
    return true;
  }
  if (sequence > last + 1) {
    counters.set(counter.sequenceGaps, 1);
    counters.set(counter.sequencesMissing, sequence - last - 1);
  }
  return false;
}

/** Counts a stored batch: `accepted` events kept, `filtered` dropped by the ingress filters. */
export function countStored(accepted: number, filtered: number, counters: Map<string, number>): void {
  counters.set(counter.batchesAccepted, 1);
  counters.set(counter.eventsAccepted, accepted);
  if (filtered > 0) counters.set(counter.eventsFiltered, filtered);
}
