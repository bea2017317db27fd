/**
 * The checkpointer's thread: a connection of its own that runs a PASSIVE checkpoint on a timer.
 * PASSIVE never waits: it copies the frames that no reader still needs while the writer goes on
 * appending, and a reader's old snapshot only delays the copy of what it can still see.
 *
 * Once the WAL has outgrown its limit, the same turn also runs a TRUNCATE checkpoint: it takes the
 * write lock, copies the frames left, waits for the readers still reading from the WAL (the read
 * workers end their paging snapshots when told to), and empties the file. The event writer waits
 * meanwhile, as it does for any connection waiting for the lock (ADR 0013).
 */
import Database from 'better-sqlite3';
import { closeSync, fdatasyncSync, openSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { workerData } from 'node:worker_threads';
import { LockWaiters } from './dialects/sqlite-lock-waiters.js';
import { walPressureChannel } from './dialects/sqlite-wal-pressure.js';
import type { CheckpointerInit, CheckpointerRequest } from './wal-checkpointer.js';
import { serveRequests, type WorkerReply } from './worker-threads.js';

/**
 * How long a restart waits for the write lock and then for the readers, holding the event writer
 * back all the while: a search in flight reads on to its end first. A WAL far past its limit (a
 * long search, or many, kept it from restarting) waits longer: a full disk loses data, a late
 * acknowledgement does not.
 */
const RESTART_WAIT_MS = 1_000;
const OVERDUE_RESTART_WAIT_MS = 10_000;
const OVERDUE_FACTOR = 4;

const { file, intervalMs, syncBefore, walLimitBytes, lockWait } = workerData as CheckpointerInit;
const connection = new Database(file, { fileMustExist: true });
const walFile = `${file}-wal`;
const readers = walPressureChannel(file);
const lockWaiters = lockWait?.lockWaiters && new LockWaiters(lockWait.lockWaiters);
/** Per file of `syncBefore`, its size when last synced: the files are only ever appended to. */
const synced = new Map<string, number>();

/** Syncs the files of `syncBefore` written since their last sync (only the hot partition's, normally). */
function syncChangedFiles(directory: string): void {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  for (const name of names) {
    const path = join(directory, name);
    const size = statSync(path, { throwIfNoEntry: false })?.size;
    if (size === undefined || synced.get(path) === size) continue;
    const fd = openSync(path, 'r');
    try {
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    synced.set(path, size);
  }
}

/** Copies the rest of the WAL and empties it, unless a reader or the lock holds on past the wait (then the next turn tries again). */
function restartWal(walBytes: number): void {
  readers.postMessage('restart');
  connection.pragma(`busy_timeout = ${walBytes > OVERDUE_FACTOR * walLimitBytes ? OVERDUE_RESTART_WAIT_MS : RESTART_WAIT_MS}`);
  lockWaiters?.started();
  try {
    connection.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    lockWaiters?.ended();
  }
}

const timer = setInterval(() => {
  if (syncBefore !== undefined) syncChangedFiles(syncBefore);
  connection.pragma('wal_checkpoint(PASSIVE)');
  const walBytes = statSync(walFile, { throwIfNoEntry: false })?.size ?? 0;
  if (walBytes > walLimitBytes) restartWal(walBytes);
}, intervalMs);

serveRequests<CheckpointerRequest, WorkerReply>(async () => {
  clearInterval(timer);
  readers.close();
  // Not the last connection (the writer's is still open), so closing does not checkpoint.
  connection.close();
  return {};
});
