/** The embedded event store's statements, prepared once on the writer's connection. */
import type Database from 'better-sqlite3';

/** Postings inserted by one statement: one call into SQLite instead of a hundred. */
export const POSTINGS_PER_STATEMENT = 100;

export type EventStatements = ReturnType<typeof prepareEventStatements>;

export function prepareEventStatements(connection: Database.Database) {
  return {
    getSequence: connection.prepare('SELECT last_sequence FROM sensor_sequences WHERE sensor_id = ?').pluck(),
    setSequence: connection.prepare(
      'INSERT INTO sensor_sequences (sensor_id, last_sequence) VALUES (?, ?) ON CONFLICT (sensor_id) DO UPDATE SET last_sequence = excluded.last_sequence',
    ),
    // Row ids handed out once stay used after a partition's rows are deleted (event_storage, event_partitions).
    lastProcessRow: connection.prepare(
      'SELECT max(COALESCE((SELECT MAX(id) FROM processes), 0), (SELECT process_row_floor FROM event_storage))',
    ).pluck(),
    lastSegmentRow: connection.prepare(
      'SELECT max(COALESCE((SELECT MAX(id) FROM segments), 0), (SELECT MAX(first_row) - 1 FROM event_partitions))',
    ).pluck(),
    hotPartition: connection.prepare("SELECT id, first_row FROM event_partitions WHERE state = 'hot'"),
    countInHot: connection.prepare(
      "UPDATE event_partitions SET event_bytes = event_bytes + ?, segment_count = segment_count + ? WHERE state = 'hot'",
    ),
    findProcess: connection.prepare('SELECT id, process_name, md5, group_id, hostname, host_type, os_type FROM processes WHERE sensor_id = ? AND pid = ? AND start_ms = ?'),
    latestSegment: connection.prepare(
      `SELECT s.*, max(
         (SELECT COALESCE(MAX(chunk), -1) + 1 FROM segment_events WHERE segment_row = s.id),
         (SELECT COALESCE(MAX(chunk), -1) + 1 FROM segment_chunks WHERE segment_row = s.id)) AS next_chunk
       FROM segments s WHERE process_id = ? ORDER BY segment_id DESC LIMIT 1`,
    ),
    insertProcess: connection.prepare(
      `INSERT INTO processes (id, sensor_id, pid, start_ms, group_id, hostname, host_type, os_type, path, process_name, cmdline,
         username, uid, md5, sha256, parent_pid, parent_start_ms, parent_name, parent_md5, end_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    completeProcess: connection.prepare(
      `UPDATE processes SET path = ?, process_name = ?, cmdline = ?, username = ?, uid = ?, md5 = ?, sha256 = ?,
         parent_pid = ?, parent_start_ms = ?, parent_name = ?, parent_md5 = ? WHERE id = ?`,
    ),
    endProcess: connection.prepare('UPDATE processes SET end_ms = ? WHERE id = ?'),
    insertSegment: connection.prepare(
      `INSERT INTO segments (id, process_id, segment_id, first_event_ms, last_update_ms, last_server_update_ms, event_count,
         filemod_count, regmod_count, netconn_count, modload_count, childproc_count, crossproc_count, processblock_count)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    updateSegment: connection.prepare(
      `UPDATE segments SET last_update_ms = ?, last_server_update_ms = ?, event_count = ?, filemod_count = ?,
         regmod_count = ?, netconn_count = ?, modload_count = ?, childproc_count = ?, crossproc_count = ?,
         processblock_count = ? WHERE id = ?`,
    ),
    insertChunk: connection.prepare(
      'INSERT INTO segment_chunks (segment_row, chunk, event_count, file_id, byte_offset, byte_length, written_ms) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    // RETURNING names the postings actually inserted (not those ignored): what term_segment_counts adds.
    insertPosting: connection.prepare('INSERT OR IGNORE INTO event_postings (term_id, segment_row) VALUES (?, ?) RETURNING term_id').pluck(),
    insertPostings: connection.prepare(
      `INSERT OR IGNORE INTO event_postings (term_id, segment_row) VALUES ${Array.from({ length: POSTINGS_PER_STATEMENT }, () => '(?, ?)').join(', ')}
       RETURNING term_id`,
    ).pluck(),
    addTermSegments: connection.prepare(
      `INSERT INTO term_segment_counts (term_id, segments) VALUES (?, ?)
       ON CONFLICT (term_id) DO UPDATE SET segments = segments + excluded.segments`,
    ),
    insertProcessPosting: connection.prepare('INSERT OR IGNORE INTO process_postings (term_id, process_row) VALUES (?, ?)'),
    insertProcessPostings: connection.prepare(
      `INSERT OR IGNORE INTO process_postings (term_id, process_row) VALUES ${Array.from({ length: POSTINGS_PER_STATEMENT }, () => '(?, ?)').join(', ')}`,
    ),
    addCounter: connection.prepare(
      `INSERT INTO ingest_counters (sensor_id, name, value) VALUES (?, ?, ?)
       ON CONFLICT (sensor_id, name) DO UPDATE SET value = ingest_counters.value + excluded.value`,
    ),
  };
}

/** Flat (a, b) pairs through a statement of one pair and one of POSTINGS_PER_STATEMENT pairs, as `execute` runs them. */
function batchPairs<T>(pairs: readonly number[], one: Database.Statement, many: Database.Statement,
  execute: (statement: Database.Statement, values: number[]) => T): T[] {
  const results: T[] = [];
  const whole = pairs.length - (pairs.length % (2 * POSTINGS_PER_STATEMENT));
  for (let i = 0; i < whole; i += 2 * POSTINGS_PER_STATEMENT) results.push(execute(many, pairs.slice(i, i + 2 * POSTINGS_PER_STATEMENT)));
  for (let i = whole; i < pairs.length; i += 2) results.push(execute(one, [pairs[i]!, pairs[i + 1]!]));
  return results;
}

export function insertPairs(pairs: readonly number[], one: Database.Statement, many: Database.Statement): void {
  batchPairs(pairs, one, many, (statement, values) => statement.run(values));
}

/**
 * The same through statements that return the term id of each pair they inserted; answers how
 * many pairs each term gained (a pair already stored gains nothing).
 */
export function insertCountedPairs(pairs: readonly number[], one: Database.Statement, many: Database.Statement): Map<number, number> {
  const gained = new Map<number, number>();
  for (const terms of batchPairs(pairs, one, many, (statement, values) => statement.all(values) as number[])) {
    for (const term of terms) gained.set(term, (gained.get(term) ?? 0) + 1);
  }
  return gained;
}
