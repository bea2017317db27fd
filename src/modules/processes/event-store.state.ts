/** What the embedded event store keeps in memory of an open segment, and how it reads one back. */
import { COUNTED_TYPES } from '../../ingest/prepare.js';
import type { SegmentCounts } from './process-rows.js';

export interface SegmentState {
  row: number;
  processRow: number;
  segmentId: number;
  eventCount: number;
  nextChunk: number;
  firstEventMs: number;
  lastUpdateMs: number;
  lastServerUpdateMs: number;
  counts: number[];
  /** Not yet in the table: inserted (rather than updated) at the end of the transaction. */
  unwritten: boolean;
}

export interface SegmentRow extends SegmentCounts {
  id: number;
  process_id: number;
  segment_id: number;
  event_count: number;
  next_chunk: number;
  first_event_ms: number;
  last_update_ms: number;
  last_server_update_ms: number;
}

export function toSegmentState(row: SegmentRow): SegmentState {
  return {
    row: row.id,
    processRow: row.process_id,
    segmentId: row.segment_id,
    eventCount: row.event_count,
    nextChunk: row.next_chunk,
    firstEventMs: row.first_event_ms,
    lastUpdateMs: row.last_update_ms,
    lastServerUpdateMs: row.last_server_update_ms,
    counts: COUNTED_TYPES.map((type) => row[`${type}_count`]),
    unwritten: false,
  };
}
