/**
 * Copies the WAL back into the SQLite file on a thread of its own (wal-checkpointer.worker.ts), so
 * that the event writer's commits do not also carry the checkpoint: the copy, and the file-system
 * syncs that end it, took up to a few hundred milliseconds after a commit on the writer's thread,
 * and every upload waiting for the next commit waited that long too. The writer keeps a far
 * larger automatic checkpoint of its own (WRITER_AUTOCHECKPOINT_PAGES) only as a bound on the WAL
 * should this thread fall behind or stop.
 *
 * Copying frames back does not shrink the WAL: SQLite writes it again from its start only once a
 * checkpoint has copied every frame while no reader still reads from it, which under ingest with
 * searches running never happens by itself. Past `walLimitBytes` the thread therefore restarts
 * it (ADR 0005).
 */
import type { SharedLockWait } from './dialects/sqlite.js';
import { WorkerClient, type WorkerReply } from './worker-threads.js';

export interface CheckpointerInit {
  file: string;
  /** Time between checkpoints. Each copies what the commits since the last one wrote. */
  intervalMs: number;
  /**
   * A directory of files the database's rows point into (the event chunk files): those changed
   * since the last checkpoint are synced before it, so that pages made durable by a checkpoint
   * never point at bytes a power loss could take.
   */
  syncBefore: string | undefined;
  /** The WAL size (config sqliteWalLimitMb) past which a checkpoint also restarts the WAL and empties its file. */
  walLimitBytes: number;
  /** The process's count of connections waiting for the write lock: a restart joins them, so the event writer lets it in. */
  lockWait: SharedLockWait | undefined;
}

export type CheckpointerRequest = { id: number; kind: 'close' };

/** The writer's own automatic checkpoint, in WAL pages (4 KB): 200 MB of WAL, a backstop only. */
export const WRITER_AUTOCHECKPOINT_PAGES = 50_000;

/**
 * Once a second: a page dirtied by several commits in that time (a B-tree's last pages, busy
 * postings) is copied once, and the WAL stays small enough for readers to search quickly.
 */
export const CHECKPOINT_INTERVAL_MS = 1_000;

/** The default of config sqliteWalLimitMb. */
export const DEFAULT_WAL_LIMIT_MB = 1_024;

export class WalCheckpointer {
  private readonly worker: WorkerClient<CheckpointerRequest, WorkerReply>;

  constructor(file: string, options: { intervalMs?: number | undefined; syncBefore?: string | undefined; walLimitMb?: number | undefined; lockWait?: SharedLockWait | undefined } = {}) {
    const init: CheckpointerInit = {
      file,
      intervalMs: options.intervalMs ?? CHECKPOINT_INTERVAL_MS,
      syncBefore: options.syncBefore,
      walLimitBytes: (options.walLimitMb ?? DEFAULT_WAL_LIMIT_MB) * 2 ** 20,
      lockWait: options.lockWait,
    };
    this.worker = new WorkerClient(import.meta.url, 'wal-checkpointer', init);
  }

  /** Stops checkpointing and closes the thread's connection (without a checkpoint of its own). */
  close(): Promise<void> {
    return this.worker.close();
  }
}
