/**
 * Copies the WAL back into the SQLite file on a thread of its own (wal-checkpointer.worker.ts), so
 * that the event writer's commits do not also carry the checkpoint: the copy, and the file-system
 * syncs that end it, took up to a few hundred milliseconds after a commit on the writer's thread,
 * and every upload waiting for the next commit waited that long too.
 *
 * Copying frames back does not shrink the WAL: SQLite writes it again from its start only once a
 * checkpoint has copied every frame while no reader still reads from it. Commits never pause for
 * this thread's checkpoints to catch up, so the event writer's own automatic checkpoint does it
 * (writerWalLimits), once the WAL has outgrown its limit: on the writer's thread, between two
 * commits, nothing else writes, every frame is copied, and the writer's next commit starts the
 * WAL over. Searches that keep reading from the WAL would stop that: past the limit this thread
 * has the readers let go, and far past it restarts the WAL by force (ADR 0005).
 */
import type Database from 'better-sqlite3';
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
  /** The WAL size (config sqliteWalLimitMb) past which it is started over. */
  walLimitBytes: number;
  /** The process's count of connections waiting for the write lock: a restart joins them, so the event writer lets it in. */
  lockWait: SharedLockWait | undefined;
}

export type CheckpointerRequest = { id: number; kind: 'close' };

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

/**
 * The event writer's connection checkpoints after its commits once the WAL has outgrown its limit,
 * so that its next commit can start the WAL over; `journal_size_limit` then cuts the file back to
 * the limit should it have grown past it.
 */
export function writerWalLimits(connection: Database.Database, walLimitMb = DEFAULT_WAL_LIMIT_MB): void {
  const limitBytes = walLimitMb * 2 ** 20;
  const pageBytes = connection.pragma('page_size', { simple: true }) as number;
  connection.pragma(`wal_autocheckpoint = ${Math.ceil(limitBytes / pageBytes)}`);
  connection.pragma(`journal_size_limit = ${limitBytes}`);
}
