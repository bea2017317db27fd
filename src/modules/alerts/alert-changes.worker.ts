/**
 * The thread that applies bulk alert changes: its own connection to the SQLite file and an alert
 * store on it, so that a change walking a million alerts never holds up the request thread.
 */
import { workerData } from 'node:worker_threads';
import { SqliteDatabase, sharingLockWait, type SharedLockWait } from '../../db/dialects/sqlite.js';
import { serveRequests, type WorkerReply } from '../../db/worker-threads.js';
import type { AlertVisibility } from './alert-query.js';
import { SqlAlertsStore, type AlertChanges, type AlertSelection } from './alerts.store.js';

export type ChangeRequest =
  | { id: number; kind: 'change'; selection: AlertSelection; visibility: AlertVisibility; changes: AlertChanges; atMs: number }
  | { id: number; kind: 'close' };

export interface ChangeReply extends WorkerReply {
  changed?: number;
}

export interface AlertChangesInit {
  file: string;
  /** The request thread's: this connection counts among those the event writer lets go first. */
  lockWait?: SharedLockWait | undefined;
  /** config sqlitePageCacheMb */
  pageCacheMb?: number | undefined;
}

const { file, lockWait, pageCacheMb } = workerData as AlertChangesInit;
// Waits on a timer like the request thread's connection: inside SQLite, its sleeps between
// attempts grow to 100 ms, longer than the event writer holds back for it.
const db = SqliteDatabase.open(file, { ...sharingLockWait(lockWait), yieldWhenBusy: true, pageCacheMb });
const store = new SqlAlertsStore(db);

serveRequests<ChangeRequest, ChangeReply>(async (request) => {
  if (request.kind === 'close') {
    await db.close();
    return {};
  }
  return { changed: await store.change(request.selection, request.visibility, request.changes, request.atMs) };
});
