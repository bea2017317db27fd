/**
 * The checkpointer's thread: a connection of its own that runs a PASSIVE checkpoint on a timer.
 * PASSIVE never waits: it copies the frames that no reader still needs while the writer goes on
 * appending, and a reader's old snapshot only delays the copy of what it can still see.
 */
import Database from 'better-sqlite3';
import { closeSync, fdatasyncSync, openSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { workerData } from 'node:worker_threads';
import type { CheckpointerInit, CheckpointerRequest } from './wal-checkpointer.js';
import { serveRequests, type WorkerReply } from './worker-threads.js';

const { file, intervalMs, syncBefore } = workerData as CheckpointerInit;
const connection = new Database(file, { fileMustExist: true });
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

const timer = setInterval(() => {
  if (syncBefore !== undefined) syncChangedFiles(syncBefore);
  connection.pragma('wal_checkpoint(PASSIVE)');
}, intervalMs);

serveRequests<CheckpointerRequest, WorkerReply>(async () => {
  clearInterval(timer);
  // Not the last connection (the writer's is still open), so closing does not checkpoint.
  connection.close();
  return {};
});
