/**
 * A small pool of read workers (sqlite-read.worker.ts), each with its own read-only connections
 * to the SQLite file. Jobs go to the least busy worker, except jobs of a paging snapshot, which
 * always go to the worker holding it.
 */
import type { Worker } from 'node:worker_threads';
import { startSiblingWorker } from '../worker-threads.js';
import type { ReadJob, ReadReply, ReadWorkerInit, SnapshotLimits } from './sqlite-read.messages.js';

export interface ReadPoolOptions {
  workers: number;
  /** Handler name → module URL (see ReadHandler). */
  handlers: Record<string, URL>;
  snapshots?: Partial<SnapshotLimits>;
}

interface Pending {
  worker: number;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

const DEFAULT_SNAPSHOTS: SnapshotLimits = { max: 8, idleMs: 60_000, firstPageMs: 10_000, maxAgeMs: 300_000 };

export class SqliteReadPool {
  private readonly workers: Worker[];
  private readonly busy: number[];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  constructor(file: string, options: ReadPoolOptions) {
    const init: ReadWorkerInit = {
      file,
      handlers: Object.fromEntries(Object.entries(options.handlers).map(([name, url]) => [name, url.href])),
      snapshots: { ...DEFAULT_SNAPSHOTS, ...options.snapshots },
    };
    this.workers = Array.from({ length: Math.max(1, options.workers) }, (_, index) => this.start(index, init));
    this.busy = this.workers.map(() => 0);
  }

  /**
   * Runs a job on a worker. With a snapshot key, the job reads the snapshot kept for that key (a
   * new one when `fresh`, or when none is kept), so successive pages of one search agree.
   */
  run<T>(handler: string, request: unknown, snapshot?: { key: string; fresh: boolean }): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the read pool is closed'));
    const worker = snapshot ? hash(snapshot.key) % this.workers.length : this.leastBusy();
    const id = this.nextId++;
    this.busy[worker]!++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { worker, resolve: resolve as (value: unknown) => void, reject });
      const job: ReadJob = { id, handler, request, snapshot };
      this.workers[worker]!.postMessage(job);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }

  private start(index: number, init: ReadWorkerInit): Worker {
    const worker = startSiblingWorker(import.meta.url, 'sqlite-read', init);
    worker.on('message', (reply: ReadReply) => {
      const pending = this.pending.get(reply.id);
      if (!pending) return;
      this.pending.delete(reply.id);
      this.busy[pending.worker]!--;
      if (reply.error) pending.reject(Object.assign(new Error(`search: ${reply.error.message}`), { code: reply.error.code }));
      else pending.resolve(reply.result);
    });
    const fail = (error: Error) => {
      if (this.workers[index] !== undefined && this.workers[index] !== worker) return;
      for (const [id, pending] of this.pending) {
        if (pending.worker !== index) continue;
        this.pending.delete(id);
        pending.reject(error);
      }
      // A worker that died is replaced, so one bad query does not take search down.
      if (!this.closed) this.workers[index] = this.start(index, init);
      this.busy[index] = 0;
    };
    worker.on('error', (error) => fail(error instanceof Error ? error : new Error(String(error))));
    worker.on('exit', (code) => {
      if (!this.closed) fail(new Error(`a search worker exited (${code})`));
    });
    return worker;
  }

  private leastBusy(): number {
    let best = 0;
    for (let i = 1; i < this.busy.length; i++) if (this.busy[i]! < this.busy[best]!) best = i;
    return best;
  }
}

/** FNV-1a: a stable spread of snapshot keys over workers. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
