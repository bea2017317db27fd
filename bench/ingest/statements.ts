/**
 * Where PostgreSQL's time goes during an ingest run (`--pg-statements`): the embedded PostgreSQL
 * is started with pg_stat_statements, and at the end each statement's execution time per event
 * acknowledged is printed, busiest first. Execution time is wall time in the backend: it includes
 * waits for locks and, for COMMIT, for the WAL flush.
 */
import pg from 'pg';

export const STATEMENT_SETTINGS = { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' };

export async function resetStatements(url: string): Promise<void> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await client.query('SELECT pg_stat_statements_reset()');
    await client.query("SELECT pg_stat_reset_shared('wal'), pg_stat_reset_shared('checkpointer')");
  } finally {
    await client.end();
  }
}

export async function statementTimes(url: string, events: number, top = 15): Promise<Record<string, unknown>[]> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const { rows } = await client.query<{ query: string; calls: string; total_ms: number; rows: string }>(
      `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS query, calls, total_exec_time AS total_ms, rows
       FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time DESC LIMIT $1`, [top]);
    return rows.map((r) => ({
      query: r.query, calls: Number(r.calls), us_per_event: Math.round((r.total_ms * 1e4) / events) / 10,
      ms_per_call: Math.round((r.total_ms / Number(r.calls)) * 100) / 100, rows_per_call: Math.round(Number(r.rows) / Number(r.calls)),
    }));
  } finally {
    await client.end();
  }
}

/**
 * The WAL the run wrote per event and how much of it is full-page images (a page's first change
 * after each checkpoint writes the whole 8 KB page), with the checkpoints that started them: the
 * figures behind the server settings of docs/operations.md ("Server settings for ingest").
 */
export async function walFigures(url: string, events: number): Promise<Record<string, number>> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const { rows: [wal] } = await client.query<{ records: string; fpi: string; bytes: string; buffers_full: string }>(
      'SELECT wal_records AS records, wal_fpi AS fpi, wal_bytes AS bytes, wal_buffers_full AS buffers_full FROM pg_stat_wal');
    const { rows: [checkpoints] } = await client.query<{ timed: string; requested: string }>(
      'SELECT num_timed AS timed, num_requested AS requested FROM pg_stat_checkpointer');
    return {
      wal_bytes_per_event: Math.round(Number(wal!.bytes) / events),
      wal_records_per_event: Math.round((Number(wal!.records) / events) * 100) / 100,
      wal_full_pages_per_1000_events: Math.round((Number(wal!.fpi) / events) * 1e5) / 100,
      wal_buffers_full: Number(wal!.buffers_full),
      checkpoints_timed: Number(checkpoints!.timed),
      checkpoints_requested: Number(checkpoints!.requested),
    };
  } finally {
    await client.end();
  }
}
