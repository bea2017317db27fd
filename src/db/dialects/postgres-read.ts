/**
 * A read-only snapshot on PostgreSQL: REPEATABLE READ READ ONLY, so that several statements see
 * the same data without the predicate locks a SERIALIZABLE transaction (the dialect's
 * transaction()) takes on everything it reads. Nothing is written, so nothing can conflict or be
 * retried. A time limit applies to each statement (statement_timeout): one that outlives it is
 * cancelled by PostgreSQL and the read fails with ReadTimeout, as a SQLite read-pool job does.
 */
import type pg from 'pg';
import type { SqlExecutor } from '../database.js';
import { QueryTimeoutError } from '../../domain/errors.js';
import { ReadTimeout } from '../errors.js';
import { PostgresExecutor, translatePostgresError, type PostgresDatabase } from './postgres.js';

/** SQLSTATE query_canceled: here, statement_timeout passed. */
const QUERY_CANCELED = '57014';

export async function readSnapshot<T>(db: PostgresDatabase, work: (reader: SqlExecutor) => Promise<T>, timeLimitMs?: number): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await db.pool.connect();
  } catch (error) {
    throw translatePostgresError(error);
  }
  let broken: Error | undefined;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    if (timeLimitMs !== undefined) await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.ceil(timeLimitMs))}`);
    const result = await work(new PostgresExecutor(client));
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((failed: Error) => (broken = failed));
    throw readFailure(error, timeLimitMs);
  } finally {
    client.release(broken);
  }
}

/** What a failed read throws: ReadTimeout for a statement past the time limit, else the driver error translated. */
export function readFailure(error: unknown, timeLimitMs: number | undefined): unknown {
  if (timeLimitMs !== undefined && (error as { code?: unknown } | null)?.code === QUERY_CANCELED) return new ReadTimeout(timeLimitMs);
  return translatePostgresError(error);
}

/** A search's read: one that outlived its time limit is the client's QueryTimeoutError, as a read-pool job's is. */
export async function timedRead<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw error instanceof ReadTimeout ? new QueryTimeoutError(error.limitMs) : error;
  }
}
