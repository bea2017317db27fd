/**
 * PostgreSQL's schema against SQLite's: every relational table of the embedded store exists on
 * PostgreSQL with the same columns, types of the same kind, the same nullability and the same
 * seed rows, so that one store's SQL reads and writes both alike. The event store's tables are
 * designed apart for each database and left out.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dialects } from '../../../test/support/dialects.js';
import type { SqlDatabase } from '../database.js';

const EVENT_STORE_TABLES = new Set([
  'processes', 'segments', 'segment_events', 'segment_chunks', 'event_terms', 'event_postings', 'process_postings',
  'process_segment_counts', 'host_segment_counts', 'term_segment_counts', 'process_name_segment_counts', 'event_partitions', 'event_storage', 'event_chunks', 'segment_terms',
]);
/** PostgreSQL's partitions of the event tables (segments_p1, …), one per storage partition. */
const EVENT_PARTITION = /^(segments|event_chunks|segment_terms)_p\d+$/;
/** SQLite's install codes as kept before migration 14, sealed and dropped at the next start. */
const SQLITE_ONLY_TABLES = new Set(['sensor_install_codes_plaintext', 'schema_migrations']);
/**
 * What SQLite keeps in files of the data dir and PostgreSQL in the database, so that every server
 * reads it: the token key (ADR 0020), binaries' content and live-response files' content.
 */
const POSTGRES_ONLY_TABLES = new Set(['sealed_keys', 'binary_content', 'binary_content_pieces']);

const KINDS: Readonly<Record<string, string>> = {
  INTEGER: 'integer', bigint: 'integer', integer: 'integer',
  REAL: 'real', 'double precision': 'real',
  TEXT: 'text', text: 'text',
  BLOB: 'bytes', bytea: 'bytes',
};

interface Column {
  table: string;
  column: string;
  type: string;
  notNull: boolean;
}

const relational = (column: Column) => !EVENT_STORE_TABLES.has(column.table) && !EVENT_PARTITION.test(column.table)
  && !SQLITE_ONLY_TABLES.has(column.table)
  && !POSTGRES_ONLY_TABLES.has(column.table);
const shape = (columns: Column[]) => Object.fromEntries(columns.filter(relational).map((c) => [
  `${c.table}.${c.column}`, `${KINDS[c.type] ?? c.type}${c.notNull ? ' not null' : ''}`,
]));

async function sqliteColumns(db: SqlDatabase): Promise<Column[]> {
  const rows = await db.all<{ table_name: string; column_name: string; type: string; notnull: number; pk: number }>(
    `SELECT m.name AS table_name, p.name AS column_name, p.type, p."notnull", p.pk
     FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'`,
  );
  // A primary key column holds no NULL (SQLite's pragma says so only of those declared NOT NULL).
  return rows.map((r) => ({ table: r.table_name, column: r.column_name, type: r.type, notNull: r.notnull === 1 || r.pk > 0 }));
}

async function postgresColumns(db: SqlDatabase): Promise<(Column & { collation: string | null })[]> {
  const rows = await db.all<{ table_name: string; column_name: string; data_type: string; is_nullable: string; collation_name: string | null }>(
    `SELECT table_name, column_name, data_type, is_nullable, collation_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name <> 'schema_migrations'`,
  );
  return rows.map((r) => ({ table: r.table_name, column: r.column_name, type: r.data_type, notNull: r.is_nullable === 'NO', collation: r.collation_name }));
}

describe('the PostgreSQL schema', () => {
  const [sqlite, postgres] = [dialects.find((d) => d.name === 'sqlite')!, dialects.find((d) => d.name === 'postgres')!];
  let lite: SqlDatabase;
  let pg: SqlDatabase;
  before(async () => {
    [lite, pg] = await Promise.all([sqlite.freshDatabase(), postgres.freshDatabase()]);
  });
  after(async () => {
    await Promise.all([lite.close(), pg.close()]);
  });

  it('has every relational table of SQLite, column for column, of the same kind and nullability', async () => {
    const expected = shape(await sqliteColumns(lite));
    const actual = shape(await postgresColumns(pg));
    assert.deepEqual(actual, expected);
  });

  it('collates every relational text column "C", so that text sorts and folds case as SQLite does', async () => {
    const others = (await postgresColumns(pg)).filter((c) => relational(c) && c.type === 'text' && c.collation !== 'C');
    assert.deepEqual(others.map((c) => `${c.table}.${c.column}`), []);
  });

  it('holds the same seed rows, and numbers new rows after them', async () => {
    const seeds = [
      'SELECT id, name FROM sites', 'SELECT id, name, site_id, settings FROM sensor_groups', 'SELECT id, version FROM ban_list_version',
      'SELECT id, name, notes, created_by FROM investigations',
    ];
    for (const query of seeds) assert.deepEqual(await pg.all(query), await lite.all(query), query);
    for (const db of [lite, pg]) {
      assert.deepEqual(await db.get("INSERT INTO sites (name) VALUES ('Second') RETURNING id"), { id: 2 });
      assert.deepEqual(await db.get("INSERT INTO investigations (name, started_ms, updated_ms) VALUES ('Second', 1, 1) RETURNING id"), { id: 2 });
    }
  });
});
