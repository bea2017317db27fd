/**
 * Partition changes in the test's own thread: the writer's partition code on the same connection
 * as an event store the test drives, as the event writer's thread runs them. And history made
 * up for a running app: its partitions made to have begun earlier.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { SqliteDatabase } from '../../src/db/dialects/sqlite.js';
import { SQLITE_FILE } from '../../src/db/open.js';
import { SqlitePartitionWriter } from '../../src/modules/partitions/partition-writer.sqlite.js';
import type { PartitionWriter } from '../../src/modules/partitions/partitions.store.js';
import type { SqliteEventStore } from '../../src/modules/processes/event-store.sqlite.js';
import { openAppDatabase, testStore, type TestApp } from './app.js';

export function partitionWriterOn(db: SqliteDatabase, store: SqliteEventStore): PartitionWriter {
  const writer = new SqlitePartitionWriter(db.connection, store);
  return { partition: (request) => db.transactionSync(() => writer.apply(request)) };
}

/** Moves the start of every partition of the app's database `ms` earlier, behind the API. */
export async function backdatePartitions(test: TestApp, ms: number): Promise<void> {
  const sql = 'UPDATE event_partitions SET start_ms = start_ms - ?';
  if (testStore() === 'postgres' || test.config.databaseUrl !== undefined) {
    const db = openAppDatabase(test);
    await db.run(sql, [ms]).finally(() => db.close());
    return;
  }
  // A plain connection of its own: the app's SQLite wrapper checkpoints on close, which waits out the app's readers.
  const raw = new Database(join(test.config.dataDir, SQLITE_FILE));
  try {
    raw.prepare(sql).run(ms);
  } finally {
    raw.close();
  }
}
