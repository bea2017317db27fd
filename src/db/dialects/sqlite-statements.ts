/**
 * Prepared statements kept per connection, for read handlers whose SQL text repeats from request
 * to request (values travel as parameters, so one query shape is one text).
 */
import type Database from 'better-sqlite3';

const CACHED_PER_CONNECTION = 256;
const caches = new WeakMap<Database.Database, Map<string, Database.Statement>>();

export function cachedStatement(connection: Database.Database, sql: string): Database.Statement {
  let cache = caches.get(connection);
  if (!cache) caches.set(connection, (cache = new Map()));
  let statement = cache.get(sql);
  if (statement) {
    // Most recently used last, so the first entry is the one to drop.
    cache.delete(sql);
  } else {
    statement = connection.prepare(sql);
    if (cache.size >= CACHED_PER_CONNECTION) cache.delete(cache.keys().next().value!);
  }
  cache.set(sql, statement);
  return statement;
}
