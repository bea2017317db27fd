/**
 * `vigil serve` on PostgreSQL, until every store has a PostgreSQL implementation. Rather than run
 * with the users on PostgreSQL and nowhere to put events, the start opens the database as a full
 * start would (so a database that is down, a schema newer than this build or the wrong secret key
 * is reported the same way), applies the migrations, and then stops, naming what is missing.
 * `vigil user`, `vigil token` and `vigil migrate` work on PostgreSQL already.
 */
import { ConfigError } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { openConfiguredDatabase } from '../db/open.js';
import { tokenKeyFor } from './shell-users.js';

/** The stores that have no PostgreSQL implementation in this build. */
export const MISSING_POSTGRES_STORES = [
  'the event store (ingest, partitions and event chunks)',
  'process and binary search',
  'process event reads',
  'document tags',
  'the dashboard',
  'watchlist and feed matching',
  'alert and threat report queries',
];

export class PostgresServeUnavailableError extends ConfigError {}

export async function refuseToServePostgres(config: Config): Promise<never> {
  const { db, migration, where } = await openConfiguredDatabase(config);
  try {
    await tokenKeyFor(config, db);
  } finally {
    await db.close();
  }
  throw new PostgresServeUnavailableError(
    `vigil serve cannot run on PostgreSQL in this build: ${MISSING_POSTGRES_STORES.join(', ')} have no PostgreSQL ` +
      `implementation yet. ${where} is migrated (schema version ${migration.to}); vigil user, token and migrate work on it.`,
  );
}
