/** A read-pool handler for the pool's own tests: counts the rows of table `t` in the snapshot it reads. */
import type Database from 'better-sqlite3';
import type { ReadResult } from '../../src/db/dialects/sqlite-read.messages.js';

export function run(connection: Database.Database, request: { more: boolean; fail?: boolean }): ReadResult<number> {
  if (request.fail) throw new Error('the handler failed');
  return { result: connection.prepare('SELECT count(*) FROM t').pluck().get() as number, more: request.more };
}
