/**
 * The event writer's thread: it owns a connection to the SQLite file and the embedded event
 * store, and commits what the request thread sends it. SQLite work (inserts, index maintenance,
 * the commit) then runs beside the HTTP, parsing and preparation of the next uploads instead of
 * stalling them.
 */
import { workerData } from 'node:worker_threads';
import { SqliteDatabase, sharingLockWait, type SharedLockWait } from '../../db/dialects/sqlite.js';
import { WalCheckpointer, writerWalLimits } from '../../db/wal-checkpointer.js';
import { serveRequests } from '../../db/worker-threads.js';
import { chunkDirectory } from '../partitions/partition-files.js';
import { SqlitePartitionWriter } from '../partitions/partition-writer.sqlite.js';
import type { HandedOverBatch, IngestBatch, SegmentRules } from '../../ingest/event-store.js';
import { HandOvers } from './hand-overs.js';
import { SqliteEventStore } from './event-store.sqlite.js';
import type { WriterReply, WriterRequest } from './event-writer.messages.js';

export interface WriterInit {
  file: string;
  rules: SegmentRules;
  /** Tests shorten it; the server uses CHECKPOINT_INTERVAL_MS. */
  checkpointIntervalMs?: number;
  /** The request thread's: its connections waiting for the lock take it before the next commit. */
  lockWait?: SharedLockWait;
  /** config sqlitePageCacheMb */
  pageCacheMb?: number;
  /** config sqliteWalLimitMb */
  walLimitMb?: number;
}

const { file, rules, checkpointIntervalMs, lockWait, pageCacheMb, walLimitMb } = workerData as WriterInit;
const db = SqliteDatabase.open(file, { ...sharingLockWait(lockWait), letWaitingWritersFirst: true, pageCacheMb });
writerWalLimits(db.connection, walLimitMb);
const checkpointer = new WalCheckpointer(file, { intervalMs: checkpointIntervalMs, syncBefore: chunkDirectory(file), walLimitMb, lockWait });
/** Made at the first request, so that a schema it cannot work with fails requests, not the thread. */
let store: SqliteEventStore | undefined;
let partitions: SqlitePartitionWriter | undefined;
const handOvers = new HandOvers();

/** The batches with the processes handed over for them in place. */
function withHandedOver(batches: readonly IngestBatch[]): Promise<IngestBatch[]> {
  return Promise.all(batches.map(async (batch) => (batch.handedOver ? { ...batch, processes: await handOvers.take(batch.handedOver.ref) } : batch)));
}

serveRequests<WriterRequest, WriterReply>(async (request) => {
  if (request.kind === 'close') {
    await checkpointer.close();
    await db.close();
    return {};
  }
  if (request.kind === 'handOverPort') {
    request.port.on('message', ({ ref, processes }: HandedOverBatch) => handOvers.arrive(ref, processes));
    return {};
  }
  if (request.kind === 'dropHandedOver') {
    for (const ref of request.refs) handOvers.drop(ref);
    return { handOversHeld: handOvers.held };
  }
  store ??= new SqliteEventStore(db, rules);
  if (request.kind === 'commit') return { outcomes: await store.commit(await withHandedOver(request.batches)) };
  if (request.kind === 'partition') {
    partitions ??= new SqlitePartitionWriter(db.connection, store);
    const writer = partitions;
    return { partition: await db.transactionSync(() => writer.apply(request.request)) };
  }
  await store.countRejection(request.sensorId, request.counters);
  return {};
});
