/**
 * Issue 18 point 6, read from the catalog of a migrated database: every table holding sensors'
 * rows (events, and the tags and tagged events on them) has sensor_id in its primary key and in
 * each unique index, and no foreign key enters it or joins two of them, so Citus can distribute
 * them by sensor_id without a redesign. A foreign key may leave one for a table every sensor
 * shares (watchlists, reports, investigations: Citus reference tables, which it allows); the
 * event store's shared tables hold no sensor_id at all.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { PostgresDatabase } from '../../dialects/postgres.js';
import { freshMigratedPostgres } from '../../../../test/support/postgres-migrated.js';
import { SENSOR_TABLES as EVENT_TABLES, SHARED_TABLES } from './002-events.js';
import { TAG_SENSOR_TABLES } from './003-tag-sensors.js';
import { SEARCH_TALLY_TABLES } from './006-search-order.js';
import { SENSOR_SEQUENCE_TABLES } from './010-sensor-sequences.js';

const SENSOR_TABLES: readonly string[] = [...EVENT_TABLES, ...TAG_SENSOR_TABLES, ...SEARCH_TALLY_TABLES, ...SENSOR_SEQUENCE_TABLES];

let db: PostgresDatabase;
before(async () => (db = await freshMigratedPostgres()));
after(async () => db.close());

/** Each unique index (primary keys included) of a table, with its columns. */
async function uniqueIndexes(table: string): Promise<{ name: string; primary: boolean; columns: string[] }[]> {
  return db.all(
    `SELECT i.relname AS name, x.indisprimary AS primary,
       ARRAY(SELECT a.attname::text FROM unnest(x.indkey) k JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k) AS columns
     FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
     WHERE x.indrelid = ?::regclass AND x.indisunique`,
    [table],
  );
}

/** What keeps `table` from being distributed by sensor_id: a missing primary key, a unique index without it. */
async function obstacles(table: string): Promise<string[]> {
  const indexes = await uniqueIndexes(table);
  const found = indexes.some((index) => index.primary) ? [] : [`${table} has no primary key`];
  for (const index of indexes) {
    if (!index.columns.includes('sensor_id')) found.push(`${table}: ${index.name} (${index.columns.join(', ')}) lacks sensor_id`);
  }
  return found;
}

test('every sensor table has sensor_id in its primary key and in every unique index', async () => {
  for (const table of SENSOR_TABLES) assert.deepEqual(await obstacles(table), []);
});

test('no foreign key enters a sensor table; those that leave one point at shared tables', async () => {
  const keys = await db.all<{ name: string }>(
    'SELECT conname AS name FROM pg_constraint WHERE contype = ? AND confrelid = ANY (?::regclass[])',
    ['f', `{${SENSOR_TABLES.join(',')}}`],
  );
  assert.deepEqual(keys, []);
  const leaving = await db.all<{ target: string }>(
    'SELECT DISTINCT confrelid::regclass::text AS target FROM pg_constraint WHERE contype = ? AND conrelid = ANY (?::regclass[]) ORDER BY 1',
    ['f', `{${SENSOR_TABLES.join(',')}}`],
  );
  assert.deepEqual(leaving.map((k) => k.target), ['investigations', 'threat_reports', 'watchlists']);
});

test('a tag or tagged event without its sensor is refused', async () => {
  const watchlist = await db.get<{ id: number }>(
    `INSERT INTO watchlists (name, search_query, index_type, enabled, readonly, group_id, from_alliance, date_added_ms)
     VALUES ('w', 'q=x', 'events', 1, 0, -1, 0, 0) RETURNING id`,
  );
  await assert.rejects(db.run('INSERT INTO watchlist_process_hits (watchlist_id, segment_row, hit_ms) VALUES (?, 1, 0)', [watchlist!.id]));
  await assert.rejects(db.run("INSERT INTO tagged_events (investigation_id, tagged_ms) VALUES (1, 0)"));
});

test('the shared tables hold no sensor_id', async () => {
  const columns = await db.all<{ table: string }>(
    "SELECT attrelid::regclass::text AS table FROM pg_attribute WHERE attname = 'sensor_id' AND attrelid = ANY (?::regclass[])",
    [`{${SHARED_TABLES.join(',')}}`],
  );
  assert.deepEqual(columns, []);
});

test('a unique index without sensor_id is an obstacle', async () => {
  await db.exec('CREATE UNIQUE INDEX processes_by_pid_only ON processes (pid, start_ms)');
  assert.deepEqual(await obstacles('processes'), ['processes: processes_by_pid_only (pid, start_ms) lacks sensor_id']);
  await db.exec('DROP INDEX processes_by_pid_only');
});
