/** A read-pool handler for the pool's own tests: counts the rows of table `t` in the snapshot it reads. */
import type Database from 'better-sqlite3';
import type { ReadResult } from '../../src/db/dialects/sqlite-read.messages.js';

export function setup(connection: Database.Database): void {
  connection.function('tick', { varargs: true }, () => 1);
}

/** `endless`: a query that never ends, calling a JavaScript function per row as compiled searches do. */
export function run(connection: Database.Database, request: { more: boolean; fail?: boolean; endless?: boolean }): ReadResult<number> {
  if (request.fail) throw new Error('the handler failed');
  const sql = request.endless
    ? 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c WHERE tick(x)'
    : 'SELECT count(*) FROM t';
  return { result: connection.prepare(sql).pluck().get() as number, more: request.more };
}
