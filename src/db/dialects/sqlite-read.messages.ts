/** What the request thread and a read worker (sqlite-read.worker.ts) say to each other. */
import type Database from 'better-sqlite3';

export interface ReadJob {
  id: number;
  /** Which handler module runs the job (a key of ReadWorkerInit.handlers). */
  handler: string;
  request: unknown;
  /** Run inside this paging snapshot (see ReadPool.run). */
  snapshot?: { key: string; fresh: boolean } | undefined;
  /** Epoch ms after which the pool has given up on the job: a worker reaching it later skips it. */
  deadline?: number | undefined;
}

/** The error code of a job its worker skipped because its time limit had passed. */
export const READ_TIMEOUT_CODE = 'READ_TIMEOUT';

export interface ReadReply {
  id: number;
  result?: unknown;
  error?: { message: string; code: string | undefined };
}

export interface ReadWorkerInit {
  file: string;
  /** Handler name → URL of a module exporting a ReadHandler's members. */
  handlers: Record<string, string>;
  snapshots: SnapshotLimits;
  /** Each connection's page cache and memory mapping of the file (config searchCacheMb, searchMmapMb). */
  memory: ReadConnectionMemory;
  /** How much nicer than the process the thread makes itself (config searchThreadNice). */
  nice: number;
}

export interface ReadConnectionMemory {
  pageCacheMb: number;
  mmapMb: number;
}

export interface SnapshotLimits {
  /** Per worker; the least recently used is released first. */
  max: number;
  /** Released when unused this long. */
  idleMs: number;
  /** A snapshot no second page has used yet is released after this long. */
  firstPageMs: number;
  /** Released this long after it was taken, used or not, so the WAL can be checkpointed. */
  maxAgeMs: number;
}

/**
 * A module a read worker runs jobs with. `run` executes synchronously on a read-only connection
 * that is already inside a read transaction (a consistent snapshot of the database).
 */
export interface ReadHandler<Request = unknown, Result = unknown> {
  /** Called once per connection the worker opens (e.g. to register SQL functions). */
  setup?(connection: Database.Database): void;
  /**
   * Work worth doing before the first request (e.g. building caches), run once when the worker
   * starts, inside a read transaction of its own: one step per call of `next`, jobs run between
   * steps, so a step should take tens of milliseconds at most.
   */
  warm?(connection: Database.Database): Iterator<void>;
  run(connection: Database.Database, request: Request): ReadResult<Result>;
}

export interface ReadResult<Result> {
  result: Result;
  /** Whether a client paging through this result will ask for more (a snapshot is worth keeping). */
  more: boolean;
}
