/**
 * The embedded default store: one SQLite file opened with better-sqlite3 in WAL mode.
 * better-sqlite3 is synchronous; calls here are short CRUD statements, so they run on the main
 * thread, while a Promise-based surface keeps stores identical across dialects.
 */
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

  constructor(readonly connection: Database.Database) {}

  all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return guarded(() => this.statement(sql).all(...bindable(params)) as T[]);
  }

  get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return guarded(() => this.statement(sql).get(...bindable(params)) as T | undefined);
  }

  run(sql: string, params: readonly SqlValue[] = []): Promise<RunResult> {
    return guarded(() => ({ changes: this.statement(sql).run(...bindable(params)).changes }));
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

  static open(file: string): SqliteDatabase {
    const connection = new Database(file);
    // Takes effect only on a new file (before its first table): space freed by deleting an event
    // partition can then be given back to the file system (docs/adr/0009-partitions.md).
    connection.pragma('auto_vacuum = INCREMENTAL');
    connection.pragma('journal_mode = WAL');
    // NORMAL in WAL mode survives a crash of this process; FULL would also survive power loss
    // at a large cost per commit. The ingest writer decides its own durability per batch.
    connection.pragma('synchronous = NORMAL');
    connection.pragma('foreign_keys = ON');
    // Another process (the `vigil token` command) may hold the write lock for a moment.
    connection.pragma('busy_timeout = 5000');
    // 64 MB of page cache (the default is 2 MB): the event store's indexes are hot and large.
    connection.pragma('cache_size = -65536');
    return new SqliteDatabase(connection);
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      this.statement('BEGIN IMMEDIATE').run();
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
    return guarded(() => void this.connection.exec(script));
  }

  async close(): Promise<void> {
    await this.queue;
    if (this.connection.open) {
      this.connection.pragma('wal_checkpoint(TRUNCATE)');
      this.connection.close();
    }
  }
}
