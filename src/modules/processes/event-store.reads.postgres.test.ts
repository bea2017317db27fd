/**
 * The event store's reads before a commit probe the index once per key (event-store.reads.postgres.ts):
 * a commit asks for hundreds of processes, nearly all of them new, and a plain join of the keys
 * to the table hashed every process the table held, on every commit.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freshMigratedPostgres } from '../../../test/support/postgres-migrated.js';
import type { PostgresDatabase } from '../../db/dialects/postgres.js';
import { LATEST_HOT_SEGMENTS, PROCESSES_BY_KEY, readProcesses } from './event-store.reads.postgres.js';

const PROCESSES = 5000;
const ASKED = 500;

describe('the PostgreSQL event store’s reads before a commit', () => {
  let db: PostgresDatabase;
  before(async () => {
    db = await freshMigratedPostgres();
    await db.exec(`
      INSERT INTO processes (sensor_id, id, pid, start_ms, group_id, hostname, host_type, os_type, process_name)
      SELECT 1 + n % 32, n, n, 1000 + n, 1, 'host', 'workstation', 'windows', 'p' || n FROM generate_series(1, ${PROCESSES}) n;
      INSERT INTO segments (sensor_id, id, process_id, segment_id, first_event_ms, last_update_ms, last_server_update_ms, event_count)
      SELECT 1 + n % 32, ${PROCESSES} + n, n, 5000, 1000, 1000, 5000, 1 FROM generate_series(1, ${PROCESSES}) n
      UNION ALL SELECT 1 + n % 32, ${2 * PROCESSES} + n, n, 6000, 1000, 2000, 6000, 1 FROM generate_series(1, ${PROCESSES}) n;
      INSERT INTO event_chunks (sensor_id, segment_id, segment_row, chunk, event_count, data, written_ms)
      VALUES (1 + 7 % 32, 6000, ${2 * PROCESSES} + 7, 0, 1, '\\x00', 6000), (1 + 7 % 32, 6000, ${2 * PROCESSES} + 7, 1, 1, '\\x00', 6000);
      ANALYZE processes, segments, event_chunks;
    `);
  });
  after(async () => db.close());

  const plan = async (sql: string, values: unknown[]) => {
    const { rows } = await db.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, values);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  };

  it('looks processes up by their keys through the index, not by reading the table', async () => {
    const keys = Array.from({ length: ASKED }, (_, i) => [1 + (i % 32), PROCESSES + i, 1000 + PROCESSES + i]);
    const text = await plan(PROCESSES_BY_KEY, [keys.map((k) => k[0]), keys.map((k) => k[1]), keys.map((k) => k[2])]);
    assert.doesNotMatch(text, /Seq Scan on processes/, text);
  });

  it('finds each process’s latest hot segment through the index, not by reading the table', async () => {
    const ids = Array.from({ length: ASKED }, (_, i) => i + 1);
    const text = await plan(LATEST_HOT_SEGMENTS, [ids.map((id) => 1 + (id % 32)), ids, 0]);
    assert.doesNotMatch(text, /Seq Scan on segments/, text);
  });

  it('answers with the known processes and the latest segment at or above the hot floor, with its next chunk', async () => {
    const client = await db.pool.connect();
    try {
      const found = await readProcesses(client, [[1 + 7 % 32, 7, 1007], [1, 999_999, 1]], 0);
      assert.equal(found.length, 1);
      assert.deepEqual([found[0]!.row, found[0]!.segment?.segmentId, found[0]!.segment?.nextChunk], [7, 6000, 2]);
      const belowFloor = await readProcesses(client, [[1 + 7 % 32, 7, 1007]], 7000);
      assert.equal(belowFloor[0]!.segment, undefined);
    } finally {
      client.release();
    }
  });
});
