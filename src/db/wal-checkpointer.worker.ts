/**
 * The checkpointer's thread: a connection of its own that runs a PASSIVE checkpoint on a timer.
 * PASSIVE never waits: it copies the frames that no reader still needs while the writer goes on
 * appending, and a reader's old snapshot only delays the copy of what it can still see.
 */
import Database from 'better-sqlite3';
import { workerData } from 'node:worker_threads';
import type { CheckpointerInit, CheckpointerRequest } from './wal-checkpointer.js';
import { serveRequests, type WorkerReply } from './worker-threads.js';

const { file, intervalMs } = workerData as CheckpointerInit;
const connection = new Database(file, { fileMustExist: true });
const timer = setInterval(() => connection.pragma('wal_checkpoint(PASSIVE)'), intervalMs);

serveRequests<CheckpointerRequest, WorkerReply>(async () => {
  clearInterval(timer);
  // Not the last connection (the writer's is still open), so closing does not checkpoint.
  connection.close();
  return {};
});
