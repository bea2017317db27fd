/**
 * Bulk alert changes run on their own thread (alert-changes.worker.ts): to the alerts service
 * they are an AlertChanger like the store itself, whose promise settles when the change is done.
 */
import { WorkerClient } from '../../db/worker-threads.js';
import type { AlertVisibility } from './alert-query.js';
import type { AlertChangesInit, ChangeReply, ChangeRequest } from './alert-changes.worker.js';
import type { AlertChanger, AlertChanges, AlertSelection } from './alerts.store.js';

export class ThreadedAlertChanges implements AlertChanger {
  private readonly worker: WorkerClient<ChangeRequest, ChangeReply>;

  constructor(file: string, lockWait?: AlertChangesInit['lockWait'], pageCacheMb?: number) {
    this.worker = new WorkerClient(import.meta.url, 'alert-changes', { file, lockWait, pageCacheMb } satisfies AlertChangesInit);
  }

  async change(selection: AlertSelection, visibility: AlertVisibility, changes: AlertChanges, atMs: number): Promise<number> {
    return (await this.worker.request({ kind: 'change', selection, visibility, changes, atMs })).changed!;
  }

  close(): Promise<void> {
    return this.worker.close();
  }
}
