/**
 * The thread that applies bulk alert changes: its own connection to the SQLite file and an alert
 * store on it, so that a change walking a million alerts never holds up the request thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteDatabase } from '../../db/dialects/sqlite.js';
import type { AlertVisibility } from './alert-query.sqlite.js';
import { SqlAlertsStore, type AlertChanges, type AlertSelection } from './alerts.store.js';

export type ChangeRequest =
  | { id: number; kind: 'change'; selection: AlertSelection; visibility: AlertVisibility; changes: AlertChanges; atMs: number }
  | { id: number; kind: 'close' };

export interface ChangeReply {
  id: number;
  changed?: number;
  error?: string;
}

const db = SqliteDatabase.open((workerData as { file: string }).file);
const store = new SqlAlertsStore(db);
const port = parentPort!;

port.on('message', (request: ChangeRequest) => {
  const work = request.kind === 'close'
    ? db.close().then(() => ({ id: request.id }))
    : store.change(request.selection, request.visibility, request.changes, request.atMs).then((changed) => ({ id: request.id, changed }));
  void work.then(
    (reply: ChangeReply) => port.postMessage(reply),
    (error: unknown) => port.postMessage({ id: request.id, error: String((error as Error).message ?? error) } satisfies ChangeReply),
  );
});
