/**
 * The checkpointer's thread: a connection of its own that runs a PASSIVE checkpoint on a timer.
 * PASSIVE never waits: it copies the frames that no reader still needs while the writer goes on
 * appending, and a reader's old snapshot only delays the copy of what it can still see.
 *
 * Once the WAL has outgrown its limit, the turn also has it started over (ADR 0005): by the event
 * writer at its next commit, or, far past the limit, by force.
 */
import Database from 'better-sqlite3';
import { workerData } from 'node:worker_threads';
import { AppendedFiles } from './appended-files.js';
import { LockWaiters } from './dialects/sqlite-lock-waiters.js';
import { READERS_LET_GO_MS, walPressureChannel } from './dialects/sqlite-wal-pressure.js';
import type { CheckpointerInit, CheckpointerRequest } from './wal-checkpointer.js';
import { serveRequests, type WorkerReply } from './worker-threads.js';

/**
 * How long a forced restart waits for the write lock and then for the readers, holding the event
 * writer back all the while: the searches in flight read on to their end first.
 */
const FORCED_RESTART_WAIT_MS = 10_000;
/** Past this many times its limit, the WAL is restarted by force. */
const OVERDUE_FACTOR = 4;
/** WAL_FRAME_HDRSIZE: each frame of the WAL is a page and this header. */
const FRAME_HEADER_BYTES = 24;

const { file, intervalMs, syncBefore, walLimitBytes, lockWait } = workerData as CheckpointerInit;
const connection = new Database(file, { fileMustExist: true });
const walPressure = walPressureChannel(file);
const pageBytes = connection.pragma('page_size', { simple: true }) as number;
const lockWaiters = lockWait?.lockWaiters && new LockWaiters(lockWait.lockWaiters);
const chunkFiles = syncBefore === undefined ? undefined : new AppendedFiles(syncBefore);

/**
 * The forced restart of a WAL that has outgrown its limit several times over: it takes the write
 * lock (joining the connections waiting for it, so that the event writer lets it in between two
 * commits), copies the frames left, waits for the searches in flight, and empties the file. It
 * gives up after FORCED_RESTART_WAIT_MS, leaving everything as it was, and a later turn tries again.
 */
function forceRestart(): void {
  checkpoint();
  connection.pragma(`busy_timeout = ${FORCED_RESTART_WAIT_MS}`);
  lockWaiters?.started();
  try {
    connection.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    lockWaiters?.ended();
  }
}

/** How many bytes of the WAL are in use (its file may be larger: it is written over from its start after a restart). */
function checkpoint(): number {
  chunkFiles?.syncChanged();
  const [{ log }] = connection.pragma('wal_checkpoint(PASSIVE)') as [{ log: number }];
  return log * (pageBytes + FRAME_HEADER_BYTES);
}

let forcing: NodeJS.Timeout | undefined;
const timer = setInterval(() => {
  if (forcing) return;
  const walBytes = checkpoint();
  if (walBytes <= walLimitBytes) return;
  // The readers end their paging snapshots, and the event writer's checkpoint after its next
  // commit can copy every frame back: the commit after that starts the WAL over, unless a search
  // that began before still reads from it (then a later turn asks again).
  walPressure.postMessage('restart');
  if (walBytes > OVERDUE_FACTOR * walLimitBytes) {
    forcing = setTimeout(() => {
      forcing = undefined;
      forceRestart();
    }, READERS_LET_GO_MS);
  }
}, intervalMs);

serveRequests<CheckpointerRequest, WorkerReply>(async () => {
  clearInterval(timer);
  clearTimeout(forcing);
  walPressure.close();
  // Not the last connection (the writer's is still open), so closing does not checkpoint.
  connection.close();
  return {};
});
