/**
 * A small pool of read workers (sqlite-read.worker.ts), each with its own read-only connections
 * to the SQLite file. Jobs go to the least busy worker, except jobs of a paging snapshot, which
 * always go to the worker holding it.
 *
 * Time limit: a job unanswered `timeLimitMs` after it was sent fails with ReadTimeout, as does
 * one whose answer is handled past that time. If it is
 * the job its worker is running, the worker is terminated (V8 stops it at the next JavaScript
 * the query reaches: a row handed back, or one of the SQL functions the query language compiles
 * to; a statement running inside SQLite alone runs on to its end first, its result discarded)
 * and replaced, and the jobs queued behind it go to the replacement. A job still queued when its
 * time is up is skipped by the worker when it gets to it.
 */
import type { Worker } from 'node:worker_threads';
import { ReadTimeout } from '../errors.js';
import { startSiblingWorker } from '../worker-threads.js';
import { READ_TIMEOUT_CODE, type ReadConnectionMemory, type ReadJob, type ReadReply, type ReadWorkerInit, type SnapshotLimits } from './sqlite-read.messages.js';

/** Pages of the file read through a shared mapping (up to 16 GB) instead of copied into each connection's cache. */
export const DEFAULT_READ_MEMORY: ReadConnectionMemory = { pageCacheMb: 16, mmapMb: 16_384 };

export interface ReadPoolOptions {
  workers: number;
  /** Handler name → module URL (see ReadHandler). */
  handlers: Record<string, URL>;
  snapshots?: Partial<SnapshotLimits>;
  /** Each read connection's memory; DEFAULT_READ_MEMORY when absent. */
  memory?: ReadConnectionMemory;
  /** How much nicer than the process each worker thread runs (config searchThreadNice); 0 when absent. */
  nice?: number;
  /** The most each worker's V8 old generation may hold, in MB (config searchHeapMb); Node's default when absent. */
  heapLimitMb?: number;
  /** How long a job may take, from when it is sent; unlimited when absent. */
  timeLimitMs?: number;
  /**
   * Handlers the time limit does not apply to: bounded lookups that complete what a limited job
   * found (the tags of a page of results), which the limit would otherwise fail at random.
   */
  untimedHandlers?: readonly string[];
  /** The clock deadlines are set and checked on (tests move it; the workers read the system's). */
  now?: () => number;
}

interface Pending {
  worker: number;
  job: ReadJob;
  timer: NodeJS.Timeout | undefined;
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
  private readonly init: ReadWorkerInit;
  private readonly timeLimitMs: number | undefined;
  private readonly heapLimitMb: number | undefined;
  private readonly untimed: ReadonlySet<string>;
  private readonly now: () => number;

  constructor(file: string, options: ReadPoolOptions) {
    const init: ReadWorkerInit = {
      file,
      handlers: Object.fromEntries(Object.entries(options.handlers).map(([name, url]) => [name, url.href])),
      snapshots: { ...DEFAULT_SNAPSHOTS, ...options.snapshots },
      memory: options.memory ?? DEFAULT_READ_MEMORY,
      nice: options.nice ?? 0,
    };
    this.init = init;
    this.timeLimitMs = options.timeLimitMs;
    this.heapLimitMb = options.heapLimitMb;
    this.untimed = new Set(options.untimedHandlers);
    this.now = options.now ?? Date.now;
    this.workers = Array.from({ length: Math.max(1, options.workers) }, (_, index) => this.start(index));
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
    const limit = this.untimed.has(handler) ? undefined : this.timeLimitMs;
    const job: ReadJob = { id, handler, request, snapshot, deadline: limit === undefined ? undefined : this.now() + limit };
    return new Promise<T>((resolve, reject) => {
      const timer = limit === undefined ? undefined : setTimeout(() => this.timeOut(id, limit), limit);
      this.pending.set(id, { worker, job, timer, resolve: resolve as (value: unknown) => void, reject });
      this.workers[worker]!.postMessage(job);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.pending.values()) clearTimeout(pending.timer);
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }

  private timeOut(id: number, limitMs: number): void {
    const timedOut = this.pending.get(id);
    if (!timedOut) return;
    this.settle(id, timedOut);
    timedOut.reject(new ReadTimeout(limitMs));
    // A worker runs its jobs in the order sent: one whose earlier jobs are all answered is running it.
    const running = ![...this.pending.keys()].some((other) => other < id && this.pending.get(other)!.worker === timedOut.worker);
    if (running && !this.closed) this.replace(timedOut.worker);
  }

  /** Terminates a worker stuck in a job and sends the jobs queued behind it to a new one. */
  private replace(index: number): void {
    const stuck = this.workers[index]!;
    const replacement = this.start(index);
    this.workers[index] = replacement;
    stuck.terminate().catch(() => undefined);
    for (const [id, pending] of this.pending) {
      if (pending.worker !== index) continue;
      if (pending.job.deadline === undefined || pending.job.deadline > this.now()) {
        replacement.postMessage(pending.job);
      } else {
        this.settle(id, pending);
        pending.reject(new ReadTimeout(this.timeLimitMs!));
      }
    }
  }

  private settle(id: number, pending: Pending): void {
    clearTimeout(pending.timer);
    this.pending.delete(id);
    this.busy[pending.worker]!--;
  }

  private start(index: number): Worker {
    const worker = startSiblingWorker(import.meta.url, 'sqlite-read', this.init, { heapLimitMb: this.heapLimitMb });
    worker.on('message', (reply: ReadReply) => {
      // A replaced worker may still answer before it stops; its replacement answers instead.
      if (this.workers[index] !== worker) return;
      const pending = this.pending.get(reply.id);
      if (!pending) return;
      this.settle(reply.id, pending);
      // An answer past the deadline fails like one that never came: which of the two the timer
      // and the answer reach first depends on when the busy event loop gets to them.
      const late = pending.job.deadline !== undefined && this.now() > pending.job.deadline;
      if (reply.error?.code === READ_TIMEOUT_CODE || late) pending.reject(new ReadTimeout(this.timeLimitMs!));
      else if (reply.error) pending.reject(Object.assign(new Error(`search: ${reply.error.message}`), { code: reply.error.code }));
      else pending.resolve(reply.result);
    });
    const fail = (error: Error) => {
      if (this.workers[index] !== undefined && this.workers[index] !== worker) return;
      for (const [id, pending] of this.pending) {
        if (pending.worker !== index) continue;
        this.settle(id, pending);
        pending.reject(error);
      }
      // A worker that died is replaced, so one bad query does not take search down.
      if (!this.closed) this.workers[index] = this.start(index);
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
