/**
 * Partition changes in the test's own thread: the writer's partition code on the same connection
 * as an event store the test drives, as the event writer's thread runs them.
 */
import type { SqliteDatabase } from '../../src/db/dialects/sqlite.js';
import { SqlitePartitionWriter } from '../../src/modules/partitions/partition-writer.sqlite.js';
import type { PartitionWriter } from '../../src/modules/partitions/partitions.store.js';
import type { SqliteEventStore } from '../../src/modules/processes/event-store.sqlite.js';

export function partitionWriterOn(db: SqliteDatabase, store: SqliteEventStore): PartitionWriter {
  const writer = new SqlitePartitionWriter(db.connection, store);
  return { partition: (request) => db.transactionSync(() => writer.apply(request)) };
}
