/**
 * The embedded default store: one SQLite file opened with better-sqlite3 in WAL mode.
 * better-sqlite3 is synchronous; calls here are short CRUD statements, so they run on the main
 * thread, while a Promise-based surface keeps stores identical across dialects.
 *
 * The event writer holds the write lock for the length of its commits (up to a few hundred ms).
 * SQLite's busy timeout waits for a lock by sleeping inside the call, which on the request thread
 * would hold the event loop that long for every check-in. A connection opened with `yieldWhenBusy`
 * (the request thread's) waits between attempts on a timer instead.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import type { RunResult, SqlDatabase, SqlExecutor, SqlValue } from '../database.js';
import { ForeignKeyViolation, UniqueViolation } from '../errors.js';

type Bindable = Exclude<SqlValue, boolean>;

/** SQLite has no boolean type: booleans are stored as 0/1. */
function bindable(params: readonly SqlValue[]): Bindable[] {
  return params.map((value) => (typeof value === 'boolean' ? (value ? 1 : 0) : value));
}

function translateDriverError(error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return new UniqueViolation(error);
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return new ForeignKeyViolation(error);
  return error;
}

/** How long a write waits for the lock before it fails with SQLITE_BUSY, either way of waiting. */
const BUSY_PATIENCE_MS = 5_000;
const LONGEST_BUSY_PAUSE_MS = 20;

function isBusy(error: unknown): boolean {
  return String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY');
}

/** Attempts `statement` until it gets the lock, pausing on a timer in between (the event loop runs on). */
async function whenUnlocked<T>(statement: () => T): Promise<T> {
  const deadline = Date.now() + BUSY_PATIENCE_MS;
  for (let pauseMs = 1; ; pauseMs = Math.min(pauseMs * 2, LONGEST_BUSY_PAUSE_MS)) {
    try {
      return statement();
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw translateDriverError(error);
    }
    await sleep(pauseMs);
  }
}

function guarded<T>(statement: () => T): Promise<T> {
  try {
    return Promise.resolve(statement());
  } catch (error) {
    return Promise.reject(translateDriverError(error));
  }
}

class SqliteExecutor implements SqlExecutor {
  /** Statements are compiled once per SQL text; stores use a small fixed set of them. */
  private readonly statements = new Map<string, Database.Statement>();

  constructor(readonly connection: Database.Database, protected readonly yieldWhenBusy = false) {}

  all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return guarded(() => this.statement(sql).all(...bindable(params)) as T[]);
  }

  get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return guarded(() => this.statement(sql).get(...bindable(params)) as T | undefined);
  }

  run(sql: string, params: readonly SqlValue[] = []): Promise<RunResult> {
    return this.writing(() => ({ changes: this.statement(sql).run(...bindable(params)).changes }));
  }

  /** A write: outside a transaction it must take the lock itself, by waiting on a timer if so opened. */
  protected writing<T>(statement: () => T): Promise<T> {
    return this.yieldWhenBusy && !this.connection.inTransaction ? whenUnlocked(statement) : guarded(statement);
  }

  protected statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.connection.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}

export class SqliteDatabase extends SqliteExecutor implements SqlDatabase {
  readonly dialect = 'sqlite' as const;
  /** Tail of the queue of transactions: each one starts when the previous has settled. */
  private queue: Promise<unknown> = Promise.resolve();

  static open(file: string, options: { yieldWhenBusy?: boolean } = {}): SqliteDatabase {
    const connection = new Database(file);
    // Takes effect only on a new file (before its first table): space freed by deleting an event
    // partition can then be given back to the file system (docs/adr/0009-partitions.md).
    connection.pragma('auto_vacuum = INCREMENTAL');
    connection.pragma('journal_mode = WAL');
    // NORMAL in WAL mode survives a crash of this process; FULL would also survive power loss
    // at a large cost per commit. The ingest writer decides its own durability per batch.
    connection.pragma('synchronous = NORMAL');
    connection.pragma('foreign_keys = ON');
    // The writer thread, or another process (the `vigil token` command), may hold the write lock
    // for a moment: wait in SQLite, or (yieldWhenBusy) in whenUnlocked's attempts.
    connection.pragma(`busy_timeout = ${options.yieldWhenBusy ? 0 : BUSY_PATIENCE_MS}`);
    // 64 MB of page cache (the default is 2 MB): the event store's indexes are hot and large.
    connection.pragma('cache_size = -65536');
    return new SqliteDatabase(connection, options.yieldWhenBusy);
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      await this.writing(() => this.statement('BEGIN IMMEDIATE').run());
      try {
        const result = await work(this);
        this.statement('COMMIT').run();
        return result;
      } catch (error) {
        if (this.connection.inTransaction) this.statement('ROLLBACK').run();
        throw error;
      }
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /**
   * Runs `work` synchronously in one transaction on the raw connection, queued behind the other
   * transactions. For the ingest writer, whose batches are too hot for one Promise per statement.
   */
  transactionSync<T>(work: (connection: Database.Database) => T): Promise<T> {
    const run = (): T => this.connection.transaction(() => work(this.connection)).immediate();
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  exec(script: string): Promise<void> {
    return this.writing(() => void this.connection.exec(script));
  }

  async close(): Promise<void> {
    await this.queue;
    if (this.connection.open) {
      this.connection.pragma('wal_checkpoint(TRUNCATE)');
      this.connection.close();
    }
  }
}
