/**
 * A stand-in for the event writer under full-rate ingest, for tests: on its own thread it commits
 * back to back, each transaction holding the write lock for `holdMs`, until `stop` is set.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteDatabase, sharingLockWait, type SharedLockWait } from '../../src/db/dialects/sqlite.js';

export interface BusyWriterInit {
  file: string;
  holdMs: number;
  lockWait: SharedLockWait;
  letWaitingWritersFirst: boolean;
  /** An Int32Array's buffer: the writer stops when its first element is set. */
  stop: SharedArrayBuffer;
  /** Rows of this many bytes instead of bare numbers, to grow the WAL. */
  rowBytes?: number;
  /** wal_autocheckpoint of its connection (SQLite's default when absent). */
  autocheckpointPages?: number;
}

const { file, holdMs, lockWait, letWaitingWritersFirst, stop, rowBytes, autocheckpointPages } = workerData as BusyWriterInit;
const stopped = new Int32Array(stop);
const db = SqliteDatabase.open(file, { ...sharingLockWait(lockWait), letWaitingWritersFirst });
if (autocheckpointPages !== undefined) db.connection.pragma(`wal_autocheckpoint = ${autocheckpointPages}`);
const insert = rowBytes === undefined ? 'INSERT INTO t (n) VALUES (-1)' : `INSERT INTO t (n, filler) VALUES (-1, randomblob(${rowBytes}))`;
let commits = 0;
while (Atomics.load(stopped, 0) === 0) {
  await db.transactionSync((connection) => {
    connection.prepare(insert).run();
    for (const until = performance.now() + holdMs; performance.now() < until;) {
      // holds the lock, as a commit of many events does
    }
  });
  if (++commits === 1) parentPort!.postMessage('committing');
}
await db.close();
parentPort!.postMessage(commits);
