/**
 * Bulk alert changes run on their own thread (alert-changes.worker.ts): to the alerts service
 * they are an AlertChanger like the store itself, whose promise settles when the change is done.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { AlertVisibility } from './alert-query.sqlite.js';
import type { ChangeReply, ChangeRequest } from './alert-changes.worker.js';
import type { AlertChanges, AlertSelection, AlertsStore } from './alerts.store.js';

export type AlertChanger = Pick<AlertsStore, 'change'>;

type Request = ChangeRequest extends infer R ? (R extends ChangeRequest ? Omit<R, 'id'> : never) : never;

/** The worker's file beside this one: .ts from source (tests, through tsx), .js when built. */
const FROM_SOURCE = extname(fileURLToPath(import.meta.url)) === '.ts';
const WORKER_URL = new URL(`./alert-changes.worker${FROM_SOURCE ? '.ts' : '.js'}`, import.meta.url);

/** From source the entry imports the TypeScript file once tsx's hooks are in place in the thread (see event-store.threaded.ts). */
function startWorker(file: string): Worker {
  if (!FROM_SOURCE) return new Worker(WORKER_URL, { workerData: { file } });
  const entry = `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER_URL.href)}); })`;
  return new Worker(entry, { eval: true, workerData: { file } });
}

export class ThreadedAlertChanges implements AlertChanger {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: (reply: ChangeReply) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private failure: Error | undefined;

  constructor(file: string) {
    this.worker = startWorker(file);
    this.worker.on('message', (reply: ChangeReply) => {
      const waiting = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (reply.error === undefined) waiting?.resolve(reply);
      else waiting?.reject(new Error(`alert changes: ${reply.error}`));
    });
    const fail = (error: Error) => {
      this.failure = error;
      for (const waiting of this.waiting.values()) waiting.reject(error);
      this.waiting.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the alert changes thread exited (${code})`)));
  }

  async change(selection: AlertSelection, visibility: AlertVisibility, changes: AlertChanges, atMs: number): Promise<number> {
    return (await this.request({ kind: 'change', selection, visibility, changes, atMs })).changed!;
  }

  async close(): Promise<void> {
    if (this.failure) return;
    await this.request({ kind: 'close' });
    await this.worker.terminate();
  }

  private request(request: Request): Promise<ChangeReply> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ ...request, id });
    });
  }
}
