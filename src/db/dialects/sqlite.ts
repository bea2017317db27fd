/**
 * The embedded default store: one SQLite file opened with better-sqlite3 in WAL mode.
 * better-sqlite3 is synchronous; calls here are short CRUD statements, so they run on the calling
 * thread, while a Promise-based surface keeps stores identical across dialects.
 *
 * SQLite has one write lock per file, and other connections take it too: the event writer thread
 * for the length of its commits (up to a few hundred ms), bulk alert changes, other processes (the
 * `vigil token` command). No write here may fail because one of them holds it (ADR 0013):
 * - every statement outside a transaction (a write through `get` or `all`, with RETURNING, too)
 *   and every transaction's BEGIN IMMEDIATE waits for the lock. A connection opened with
 *   `yieldWhenBusy` (the request thread's) waits between attempts on a timer, so that the event
 *   loop runs on; SQLite's busy timeout would sleep inside the call. Others wait inside SQLite,
 *   on threads of their own;
 * - a transaction holds the lock from its first statement, so nothing in it can find it taken;
 * - writes on the database itself wait while a transaction of this connection is open, so that
 *   they never run inside another caller's transaction (and roll back with it);
 * - a wait longer than `lockWaitMs` fails with DatabaseBusy, which clients get as 503 with
 *   Retry-After, not as a 500.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import type { RunResult, SqlDatabase, SqlExecutor, SqlValue } from '../database.js';
import { DatabaseBusy, ForeignKeyViolation, UniqueViolation } from '../errors.js';
import { LockWaiters } from './sqlite-lock-waiters.js';

type Bindable = Exclude<SqlValue, boolean>;

/** SQLite has no boolean type: booleans are stored as 0/1. */
function bindable(params: readonly SqlValue[]): Bindable[] {
  return params.map((value) => (typeof value === 'boolean' ? (value ? 1 : 0) : value));
}

function isBusy(error: unknown): boolean {
  return String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY');
}

function translateDriverError(error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return new UniqueViolation(error);
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return new ForeignKeyViolation(error);
  if (isBusy(error)) return new DatabaseBusy(error);
  return error;
}

/** How long a statement or a transaction waits for the write lock by default, either way of waiting. */
export const DEFAULT_LOCK_WAIT_MS = 10_000;
const LONGEST_BUSY_PAUSE_MS = 20;
/** The longest the event writer holds back a transaction for the connections waiting for the lock. */
const WAITING_WRITERS_FIRST_MS = 250;

export interface SqliteOpenOptions {
  /** Wait for the write lock on a timer instead of inside SQLite: for a thread that must not block. */
  yieldWhenBusy?: boolean | undefined;
  /** How long to wait for the write lock before DatabaseBusy (DEFAULT_LOCK_WAIT_MS). */
  lockWaitMs?: number | undefined;
  /** This process's count of connections waiting for the lock (sqlite-lock-waiters.ts), shared by its threads. */
  lockWaiters?: LockWaiters | undefined;
  /** The event writer: before each transaction, let the connections waiting for the lock take it first. */
  letWaitingWritersFirst?: boolean | undefined;
  /** Page cache of the connection (config sqlitePageCacheMb); DEFAULT_PAGE_CACHE_MB when absent. */
  pageCacheMb?: number | undefined;
}

/** The event store's indexes are hot and large: 64 MB (SQLite's default is 2 MB). */
export const DEFAULT_PAGE_CACHE_MB = 64;

/** How the request thread's connection waits for the lock, passed in workerData to a worker's connection. */
export interface SharedLockWait {
  lockWaitMs: number | undefined;
  /** LockWaiters.buffer */
  lockWaiters: SharedArrayBuffer | undefined;
}

/** Options for a worker thread's connection that waits for the lock as `shared` says. */
export function sharingLockWait(shared: SharedLockWait | undefined): SqliteOpenOptions {
  return { lockWaitMs: shared?.lockWaitMs, lockWaiters: shared?.lockWaiters && new LockWaiters(shared.lockWaiters) };
}

function guarded<T>(statement: () => T): Promise<T> {
  try {
    return Promise.resolve(statement());
  } catch (error) {
    return Promise.reject(translateDriverError(error));
  }
}

/** Statements of one connection, compiled once per SQL text (stores use a small fixed set of them). */
abstract class SqliteExecutor implements SqlExecutor {
  constructor(readonly connection: Database.Database, private readonly statements: Map<string, Database.Statement>) {}

  all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return this.perform(sql, (statement) => statement.all(...bindable(params)) as T[]);
  }

  get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return this.perform(sql, (statement) => statement.get(...bindable(params)) as T | undefined);
  }

  run(sql: string, params: readonly SqlValue[] = []): Promise<RunResult> {
    return this.perform(sql, (statement) => ({ changes: statement.run(...bindable(params)).changes }));
  }

  protected abstract perform<T>(sql: string, execute: (statement: Database.Statement) => T): Promise<T>;

  protected statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.connection.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}

/** What a transaction's work runs its SQL through: the transaction holds the lock, so statements run at once. */
class SqliteTransaction extends SqliteExecutor {
  protected perform<T>(sql: string, execute: (statement: Database.Statement) => T): Promise<T> {
    return guarded(() => execute(this.statement(sql)));
  }
}

export class SqliteDatabase extends SqliteExecutor implements SqlDatabase {
  readonly dialect = 'sqlite' as const;
  /** Tail of the queue of transactions: each one starts when the previous has settled. */
  private queue: Promise<unknown> = Promise.resolve();
  /** The transaction open on this connection, if any: `ended` settles when it commits or rolls back. */
  private openTransaction: { ended: Promise<void>; end: () => void } | undefined;
  private readonly transactionExecutor: SqliteTransaction;

  static open(file: string, options: SqliteOpenOptions = {}): SqliteDatabase {
    const connection = new Database(file);
    connection.pragma(`busy_timeout = ${options.yieldWhenBusy ? 0 : options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS}`);
    // Takes effect only on a new file (before its first table): space freed by deleting an event
    // partition can then be given back to the file system (docs/adr/0009-partitions.md). Only
    // asked of an empty file: on one in use it takes the write lock, so that opening a connection
    // (a worker thread's, a `vigil` command's) failed while the event writer committed.
    if (connection.pragma('page_count', { simple: true }) === 0) connection.pragma('auto_vacuum = INCREMENTAL');
    connection.pragma('journal_mode = WAL');
    // NORMAL in WAL mode survives a crash of this process; FULL would also survive power loss
    // at a large cost per commit. The ingest writer decides its own durability per batch.
    connection.pragma('synchronous = NORMAL');
    connection.pragma('foreign_keys = ON');
    connection.pragma(`cache_size = -${(options.pageCacheMb ?? DEFAULT_PAGE_CACHE_MB) * 1024}`);
    return new SqliteDatabase(connection, options);
  }

  private constructor(connection: Database.Database, private readonly options: SqliteOpenOptions) {
    const statements = new Map<string, Database.Statement>();
    super(connection, statements);
    this.transactionExecutor = new SqliteTransaction(connection, statements);
  }

  /** How this connection waits for the lock, for the worker threads' connections to wait alike. */
  get lockWait(): SharedLockWait {
    return { lockWaitMs: this.options.lockWaitMs, lockWaiters: this.options.lockWaiters?.buffer };
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.inTransaction(() => work(this.transactionExecutor));
  }

  /**
   * Runs `work` synchronously in one transaction on the raw connection, queued behind the other
   * transactions. For the ingest writer, whose batches are too hot for one Promise per statement.
   */
  transactionSync<T>(work: (connection: Database.Database) => T): Promise<T> {
    return this.inTransaction(() => work(this.connection));
  }

  /** In a transaction of its own: a script that found the lock taken halfway would otherwise be retried from its start. */
  exec(script: string): Promise<void> {
    return this.transactionSync((connection) => void connection.exec(script));
  }

  async close(): Promise<void> {
    await this.queue;
    if (this.connection.open) {
      this.connection.pragma('wal_checkpoint(TRUNCATE)');
      this.connection.close();
    }
  }

  /**
   * A statement of its own. A write waits for the transaction open on this connection, if any, so
   * as not to join it; a read runs at once (and sees that transaction's rows so far, as SQLite
   * lets a connection see its own). Then it waits for the write lock, if it writes.
   */
  protected async perform<T>(sql: string, execute: (statement: Database.Statement) => T): Promise<T> {
    let statement: Database.Statement;
    try {
      statement = this.statement(sql);
    } catch (error) {
      throw translateDriverError(error);
    }
    return this.withLock(() => execute(statement), !statement.readonly);
  }

  /** Runs `attempt` until it does not find the write lock taken, waiting on a timer in between if so opened. */
  private async withLock<T>(attempt: () => T, writes: boolean): Promise<T> {
    let deadline: number | undefined;
    try {
      for (let pauseMs = 1; ; pauseMs = Math.min(pauseMs * 2, LONGEST_BUSY_PAUSE_MS)) {
        while (writes && this.openTransaction) await this.openTransaction.ended;
        try {
          return attempt();
        } catch (error) {
          if (!isBusy(error) || !this.options.yieldWhenBusy) throw translateDriverError(error);
          if (deadline === undefined) {
            deadline = Date.now() + (this.options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS);
            this.options.lockWaiters?.started();
          }
          if (Date.now() >= deadline) throw translateDriverError(error);
        }
        await sleep(pauseMs);
      }
    } finally {
      if (deadline !== undefined) this.options.lockWaiters?.ended();
    }
  }

  /** Runs `work` in a transaction once those queued before it have settled. */
  private inTransaction<T>(work: () => T | Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      await this.begin();
      try {
        const result = await work();
        this.commit();
        return result;
      } catch (error) {
        this.end();
        throw error;
      }
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Takes the write lock (BEGIN IMMEDIATE), waiting for it as any statement does. */
  private async begin(): Promise<void> {
    if (this.options.letWaitingWritersFirst) this.options.lockWaiters?.letWaitingGoFirst(WAITING_WRITERS_FIRST_MS);
    await this.withLock(() => {
      this.statement('BEGIN IMMEDIATE').run();
      // In the same synchronous step: no statement of another caller may slip in between.
      let end!: () => void;
      const ended = new Promise<void>((resolve) => (end = resolve));
      this.openTransaction = { ended, end };
    }, true);
  }

  private commit(): void {
    try {
      this.statement('COMMIT').run();
    } catch (error) {
      throw translateDriverError(error);
    }
    this.end();
  }

  /** Rolls back what is still open, and lets the statements waiting for the transaction run. */
  private end(): void {
    if (this.connection.inTransaction) this.statement('ROLLBACK').run();
    this.openTransaction?.end();
    this.openTransaction = undefined;
  }
}
