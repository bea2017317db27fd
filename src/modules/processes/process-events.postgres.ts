/**
 * Segment event reads on PostgreSQL: a segment's chunks are rows of event_chunks (deflated
 * event-codec text, docs/adr/0019-postgres-event-store.md), read by any server. The process
 * detail store reads them through a SegmentChunkSource; the events routes through an
 * EventListStore, which here decodes and formats on the request thread (the embedded store does
 * it in a read worker). Unmounted partitions are detached tables, so the detail store hides no
 * segment rows itself.
 */
import { inflateRawSync } from 'node:zlib';
import type { SqlExecutor } from '../../db/database.js';
import type { PostgresDatabase } from '../../db/dialects/postgres.js';
import { readSnapshot, timedRead } from '../../db/dialects/postgres-read.js';
import { decodeChunk } from '../../ingest/event-codec.js';
import { SqlProcessDetailStore, type SegmentChunkSource } from './process-detail.store.js';
import { encodeEventLists, eventLists, type EncodedEventLists, type EventLists } from './process-events.js';
import type { EventListRequest, EventListStore } from './process-events.store.js';

export function postgresSegmentChunks(db: SqlExecutor): SegmentChunkSource {
  return {
    async read(segmentRows) {
      if (segmentRows.length === 0) return [];
      const rows = await db.all<{ segment_row: number; data: Buffer }>(
        `SELECT segment_row, data FROM event_chunks WHERE segment_row IN (${segmentRows.map(() => '?').join(', ')}) ORDER BY segment_row, chunk`,
        segmentRows,
      );
      const bySegment = new Map<number, Buffer[]>(segmentRows.map((row) => [row, []]));
      for (const row of rows) bySegment.get(row.segment_row)!.push(inflateRawSync(row.data));
      return segmentRows.map((row) => bySegment.get(row)!);
    },
  };
}

export class PostgresProcessDetailStore extends SqlProcessDetailStore {
  constructor(db: PostgresDatabase) {
    super(db, postgresSegmentChunks(db));
  }

  protected override async visible(): Promise<string> {
    return '';
  }
}

export class PostgresEventListStore implements EventListStore {
  /** timeLimitMs: the search time limit, which a large event read keeps too (a 504 past it), as in the read pool. */
  constructor(private readonly db: PostgresDatabase, private readonly timeLimitMs?: number) {}

  async list(request: EventListRequest): Promise<EventLists> {
    const read = await timedRead(() => readSnapshot(this.db, (reader) => postgresSegmentChunks(reader).read(request.segmentRows), this.timeLimitMs));
    const segments = read.map((chunks) =>
      chunks.flatMap((data) => decodeChunk(data, request.pid, request.startMs)));
    return eventLists(segments, request.window, request.version, request.sensorId);
  }

  async listEncoded(request: EventListRequest): Promise<EncodedEventLists> {
    return encodeEventLists(await this.list(request));
  }
}
