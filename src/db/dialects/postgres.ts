/**
 * The production store: PostgreSQL through a `pg` connection pool, behind the same narrow
 * interface as SQLite (db/database.ts), so that the stores written against it run unchanged.
 *
 * What the dialect settles so that stores need not:
 * - placeholders: stores write `?`; PostgreSQL wants `$1, $2, …` (sql-placeholders.ts);
 * - values: booleans are bound as 0/1, since the schema keeps SQLite's integer flags; BIGINT and
 *   NUMERIC results come back as numbers, not strings, as SQLite's do (ids and epoch
 *   milliseconds stay far below 2^53);
 * - transactions are SERIALIZABLE and retried when PostgreSQL reports a serialization failure or
 *   a deadlock: every history is then one that SQLite's one-writer-at-a-time would also give,
 *   across every Vigil server on the database, which is what the stores were written to expect.
 *   `work` may run more than once, so it must do nothing but SQL through its executor;
 * - driver errors become the dialect-neutral ones of db/errors.ts, and a database that cannot be
 *   reached becomes DatabaseUnavailable (503 with Retry-After), never a 500.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { RunResult, SqlDatabase, SqlExecutor, SqlValue } from '../database.js';
import { DatabaseUnavailable, ForeignKeyViolation, UniqueViolation } from '../errors.js';
import { positionalPlaceholders } from './sql-placeholders.js';

export interface PostgresOpenOptions {
  /** Connections this process keeps open at most. */
  poolSize?: number | undefined;
  /**
   * How long a statement's answer may take before it fails and its connection is closed (none
   * when absent): a database that vanished without closing its connections (a partition, a
   * failover) must not hold a request or the writer forever.
   */
  statementTimeoutMs?: number | undefined;
  /** Shown in pg_stat_activity, to tell the servers on one database apart. */
  applicationName?: string | undefined;
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;
/** Types as `pg` parses them, but with numbers where SQLite gives numbers. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID || oid === NUMERIC_OID) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};

const SERIALIZATION_FAILURE = '40001';
const DEADLOCK_DETECTED = '40P01';
const MOST_TRANSACTION_ATTEMPTS = 20;
const LONGEST_RETRY_PAUSE_MS = 100;

function bindable(params: readonly SqlValue[]): unknown[] {
  return params.map((value) => (typeof value === 'boolean' ? (value ? 1 : 0) : value));
}

function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** SQLSTATE object_not_in_prerequisite_state: among others, a database closed to connections. */
const NOT_IN_PREREQUISITE_STATE = '55000';

/**
 * Classes 08 (connection exception), 53 (insufficient resources: too many connections, disk
 * full) and 57P (operator intervention: shutdown, connections ended), a database closed to new
 * connections (ALLOW_CONNECTIONS false, as during maintenance), sockets refused or cut (a COPY
 * still writing when its backend is ended meets EPIPE), and a client ended after such a failure.
 */
function isUnreachable(error: unknown): boolean {
  const code = sqlState(error);
  if (code === undefined) return isAnswerOverdue(error) || (error instanceof Error && /Connection terminated|connect ECONN|timeout exceeded when trying to connect|connection error and is not queryable|Client was closed and is not queryable/.test(error.message));
  if (code === NOT_IN_PREREQUISITE_STATE) return error instanceof Error && /not currently accepting connections/.test(error.message);
  return code.startsWith('08') || code.startsWith('53') || code.startsWith('57P') || code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EPIPE'
    || code === 'ENOTFOUND' || code === 'ETIMEDOUT' || code === 'EHOSTUNREACH';
}

/** The driver gave up waiting for a statement's answer (statementTimeoutMs): the connection cannot be trusted again. */
function isAnswerOverdue(error: unknown): boolean {
  return error instanceof Error && error.message === 'Query read timeout';
}

export function translatePostgresError(error: unknown): unknown {
  const code = sqlState(error);
  if (code === '23505') return new UniqueViolation(error);
  if (code === '23503') return new ForeignKeyViolation(error);
  if (isUnreachable(error)) return new DatabaseUnavailable(error);
  return error;
}

export class PostgresExecutor implements SqlExecutor {
  constructor(private readonly queryable: pg.Pool | pg.PoolClient) {}

  async all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return (await this.query(sql, params)).rows as T[];
  }

  async get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return (await this.query(sql, params)).rows[0] as T | undefined;
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<RunResult> {
    return { changes: (await this.query(sql, params)).rowCount ?? 0 };
  }

  private async query(sql: string, params: readonly SqlValue[]): Promise<pg.QueryResult> {
    try {
      return await this.queryable.query({ text: positionalPlaceholders(sql), values: bindable(params), types });
    } catch (error) {
      throw translatePostgresError(error);
    }
  }
}

export class PostgresDatabase extends PostgresExecutor implements SqlDatabase {
  readonly dialect = 'postgres' as const;

  static open(url: string, options: PostgresOpenOptions = {}): PostgresDatabase {
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      application_name: options.applicationName ?? 'vigil',
      // A database that is down fails a request within seconds rather than hanging it.
      connectionTimeoutMillis: 5_000,
      // A statement sent to a database that went silent fails after this long; the pool then
      // closes its connection (a failed pool query releases the client with its error).
      ...(options.statementTimeoutMs === undefined ? {} : { query_timeout: options.statementTimeoutMs }),
      // Idle connections to a database that went silent are found out by the kernel's probes.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    // An idle connection the server closed (a restart, a failover) is dropped from the pool and
    // replaced on the next checkout; without a listener it would crash the process.
    pool.on('error', () => undefined);
    // The same end reaching a connection checked out between two statements (a transaction,
    // an advisory lock, a COPY) is an 'error' event that the pool does not listen to then. Its
    // holder learns of it from its next statement, and the pool drops it when it comes back.
    pool.on('connect', (client) => client.on('error', () => undefined));
    return new PostgresDatabase(pool);
  }

  private constructor(readonly pool: pg.Pool) {
    super(pool);
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      const client = await this.connect();
      let broken: Error | undefined;
      try {
        await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
        const result = await work(new PostgresExecutor(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        // After an overdue answer the connection is still waiting for it: a ROLLBACK would only
        // queue behind it. Closing the connection rolls the transaction back on the server.
        if (isAnswerOverdue(error)) broken = error as Error;
        else await client.query('ROLLBACK').catch((rollbackFailed: Error) => (broken = rollbackFailed));
        const code = sqlState(error);
        const retry = (code === SERIALIZATION_FAILURE || code === DEADLOCK_DETECTED) && attempt < MOST_TRANSACTION_ATTEMPTS;
        if (!retry) throw translatePostgresError(error);
      } finally {
        // A connection that could not even roll back is closed, not handed to the next caller.
        client.release(broken);
      }
      // Random pauses that grow: the transactions that collided do not all collide again.
      await sleep(Math.random() * Math.min(2 ** attempt, LONGEST_RETRY_PAUSE_MS));
    }
  }

  /**
   * Runs `work` holding the session advisory lock `key`, taken on a connection kept for it alone:
   * every process that asks for the same key waits its turn, across all servers on the database.
   * The lock belongs to that session, so a process that dies frees it with its connection.
   * `work` does its SQL on the pool as usual, so the pool needs a second connection for it.
   */
  async withSessionLock<T>(key: number, work: () => Promise<T>): Promise<T> {
    const holder = await this.connect();
    let broken: Error | undefined;
    try {
      try {
        await holder.query('SELECT pg_advisory_lock($1)', [key]);
      } catch (error) {
        broken = error as Error;
        throw translatePostgresError(error);
      }
      try {
        return await work();
      } finally {
        await holder.query('SELECT pg_advisory_unlock($1)', [key]).catch((unlockFailed: Error) => (broken = unlockFailed));
      }
    } finally {
      // A session that could not unlock is closed, which frees its lock, not handed to the next caller.
      holder.release(broken);
    }
  }

  /** A script of several statements, sent as one simple query: PostgreSQL runs it as one transaction. */
  async exec(script: string): Promise<void> {
    try {
      await this.pool.query(script);
    } catch (error) {
      throw translatePostgresError(error);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (error) {
      throw translatePostgresError(error);
    }
  }
}
