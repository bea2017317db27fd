/**
 * The plain relational part of `vigil migrate-store`: every PostgreSQL table that has a SQLite
 * twin is copied by text COPY, with the column lists read from both catalogs, so a column added
 * to both schemas moves without a change here. A PostgreSQL column SQLite lacks must be named in
 * DERIVED (read from other SQLite rows) or OMITTED (left to its default, filled later); any other
 * one stops the move rather than drop data silently.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { ConfigError } from '../config/load.js';
import type { SourceValue, SqliteSource } from './sqlite-source.js';

/** PostgreSQL columns SQLite does not have, as SQLite expressions over the table's row. */
const DERIVED: Record<string, Record<string, string>> = {
  segments: { sensor_id: '(SELECT p.sensor_id FROM processes p WHERE p.id = segments.process_id)' },
  process_segment_counts: { sensor_id: '(SELECT p.sensor_id FROM processes p WHERE p.id = process_segment_counts.process_row)' },
};

/** PostgreSQL columns left to their default here: the event pass fills them (move-store.events.ts). */
const OMITTED: Record<string, readonly string[]> = { processes: ['cmdline_words'] };

const BATCH_ROWS = 2_000;

/** One row per table with the columns to copy and where each comes from. */
export interface TablePlan {
  table: string;
  columns: string[];
  expressions: string[];
}

export function planTable(source: SqliteSource, table: string, targetColumns: readonly string[]): TablePlan {
  const sourceColumns = new Set(source.columns(table));
  const columns: string[] = [];
  const expressions: string[] = [];
  for (const column of targetColumns) {
    const expression = sourceColumns.has(column) ? `"${column}"` : DERIVED[table]?.[column];
    if (expression !== undefined) {
      columns.push(column);
      expressions.push(expression);
    } else if (!OMITTED[table]?.includes(column)) {
      throw new ConfigError(`migrate-store cannot fill ${table}.${column}: the embedded store has no such column and this build does not derive it.`);
    }
  }
  return { table, columns, expressions };
}

/** Copies the table's rows; answers how many. */
export async function copyTable(client: pg.PoolClient, source: SqliteSource, plan: TablePlan): Promise<number> {
  const rows = source.rows(`SELECT ${plan.expressions.join(', ')} FROM ${plan.table}`);
  return copyText(client, plan.table, plan.columns, rows);
}

/** COPY … FROM STDIN in text format, sent in batches as the rows are read. */
export async function copyText(client: pg.PoolClient, table: string, columns: readonly string[], rows: Iterable<readonly SourceValue[]>): Promise<number> {
  let count = 0;
  function* batches(): Generator<string> {
    let text = '';
    let inBatch = 0;
    for (const row of rows) {
      text += row.map(copyField).join('\t') + '\n';
      count++;
      if (++inBatch === BATCH_ROWS) {
        yield text;
        text = '';
        inBatch = 0;
      }
    }
    if (text) yield text;
  }
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
  await pipeline(Readable.from(batches()), stream);
  return count;
}

/** A value in COPY's text format: \N for null, bytea as \\x hex, and the four characters COPY escapes. */
function copyField(value: SourceValue): string {
  if (value === null) return '\\N';
  if (Buffer.isBuffer(value)) return `\\\\x${value.toString('hex')}`;
  if (typeof value !== 'string') return String(value);
  return value.replace(/[\\\n\r\t]/g, (c) => ESCAPES[c]!);
}

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
