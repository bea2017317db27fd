/** The read-pool handler for the dashboard (dashboard.store.ts, sent by wiring/sqlite-read-stores.ts): its statements on a worker's connection, in one snapshot. */
import type Database from 'better-sqlite3';
import type { ReadResult } from '../../db/dialects/sqlite-read.messages.js';
import { cachedStatement } from '../../db/dialects/sqlite-statements.js';
import { countsOf, countStatements, type CountsRequest, type StoreCounts } from './dashboard.queries.js';

export function run(connection: Database.Database, request: CountsRequest): ReadResult<StoreCounts> {
  const read = connection.transaction(() => countStatements(request).map(({ sql, params }) =>
    cachedStatement(connection, sql).all(...params) as Record<string, number | string | null>[]));
  return { result: countsOf(request, read()), more: false };
}
