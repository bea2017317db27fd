/**
 * A read-only snapshot on PostgreSQL: REPEATABLE READ READ ONLY, so that several statements see
 * the same data without the predicate locks a SERIALIZABLE transaction (the dialect's
 * transaction()) takes on everything it reads. Nothing is written, so nothing can conflict or be
 * retried.
 */
import type pg from 'pg';
import type { SqlExecutor } from '../database.js';
import { PostgresExecutor, translatePostgresError, type PostgresDatabase } from './postgres.js';

export async function readSnapshot<T>(db: PostgresDatabase, work: (reader: SqlExecutor) => Promise<T>): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await db.pool.connect();
  } catch (error) {
    throw translatePostgresError(error);
  }
  let broken: Error | undefined;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const result = await work(new PostgresExecutor(client));
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((failed: Error) => (broken = failed));
    throw translatePostgresError(error);
  } finally {
    client.release(broken);
  }
}
