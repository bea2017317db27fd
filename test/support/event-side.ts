/**
 * The event side of a store on each dialect, for contract suites whose subject reads what the
 * event store wrote (process detail, partitions, detection): a fresh migrated database with the
 * dialect's event store, partitions, process detail store and document tag reader on it.
 */
import type { SqlDatabase } from '../../src/db/database.js';
import type { PostgresDatabase } from '../../src/db/dialects/postgres.js';
import type { SqliteDatabase } from '../../src/db/dialects/sqlite.js';
import { PostgresDocumentTags } from '../../src/detect/document-tags.postgres.js';
import { binaryTags, segmentTags, type DocumentTagsReader } from '../../src/detect/document-tags.js';
import { connectionReader } from '../../src/detect/document-tags.sqlite.js';
import type { EventStore, SegmentRules } from '../../src/ingest/event-store.js';
import { PostgresPartitions } from '../../src/modules/partitions/partitions.postgres.js';
import { SqlPartitionsStore, type PartitionsStore, type PartitionWriter } from '../../src/modules/partitions/partitions.store.js';
import { sqliteSegmentChunks } from '../../src/modules/processes/chunk-files.sqlite.js';
import { PostgresEventStore } from '../../src/modules/processes/event-store.postgres.js';
import { SqliteEventStore } from '../../src/modules/processes/event-store.sqlite.js';
import { SqlProcessDetailStore, type ProcessDetailStore } from '../../src/modules/processes/process-detail.store.js';
import { PostgresProcessDetailStore } from '../../src/modules/processes/process-events.postgres.js';
import { forEachDialect, type DialectName } from './dialects.js';
import { partitionWriterOn } from './partitions.js';

export interface EventSide {
  db: SqlDatabase;
  events: EventStore;
  partitions: PartitionsStore & PartitionWriter;
  detail: ProcessDetailStore;
  tags: DocumentTagsReader;
}

/** A fresh database with its event side; the store segments by `rules` on the clock `now`. */
export type MakeEventSide = (rules: SegmentRules, now?: () => number) => Promise<EventSide>;

const builders: Record<DialectName, (db: SqlDatabase, rules: SegmentRules, now: () => number) => EventSide> = {
  sqlite(db, rules, now) {
    const sqlite = db as SqliteDatabase;
    const events = new SqliteEventStore(sqlite, rules, now);
    const read = connectionReader(sqlite.connection);
    return {
      db,
      events,
      partitions: Object.assign(new SqlPartitionsStore(db), partitionWriterOn(sqlite, events)),
      detail: new SqlProcessDetailStore(db, sqliteSegmentChunks(sqlite)),
      tags: {
        segmentTags: async (rows) => segmentTags(read, rows),
        binaryTags: async (md5s) => binaryTags(read, md5s),
      },
    };
  },
  postgres(db, rules, now) {
    const postgres = db as PostgresDatabase;
    return {
      db,
      events: new PostgresEventStore(postgres, rules, now),
      partitions: new PostgresPartitions(postgres),
      detail: new PostgresProcessDetailStore(postgres),
      tags: new PostgresDocumentTags(postgres),
    };
  },
};

/** Declares `suite` once per dialect, each fixture on its own fresh database. */
export function forEachEventSide(suite: (make: MakeEventSide) => void): void {
  forEachDialect((fresh) => suite(async (rules, now = Date.now) => {
    const db = await fresh();
    return builders[db.dialect](db, rules, now);
  }));
}
