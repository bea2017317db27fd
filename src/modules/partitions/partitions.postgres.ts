/**
 * Storage partitions on PostgreSQL (docs/adr/0019-postgres-event-store.md): each API partition
 * is one PostgreSQL partition of segments, event_chunks and segment_terms (`<table>_p<id>`),
 * ranged on segment_id. Every change is DDL on whole partitions in one transaction:
 *
 * - rollover bounds the hot partition at T (above every segment id in it and the clock) and
 *   creates the next from T on; the bound is a CHECK constraint first, so that later attaches
 *   need no scan;
 * - unmount detaches the three tables (searches no longer see them), mount attaches them again;
 *   both move the partition's segments out of or into the per-process and per-host counts;
 * - delete detaches at once (state deleting); purge drops the tables, the hits on their segments
 *   and the processes left without a segment.
 *
 * A record's `firstRow` is the partition's first segment id (its lower bound), its segment count
 * PostgreSQL's estimate once the table was analyzed. The tables are locked first, so a rollover waits for the ingest commits in flight on every
 * server and the commits after it read the new hot partition's floor.
 */
import type { SqlExecutor } from '../../db/database.js';
import type { PostgresDatabase } from '../../db/dialects/postgres.js';
import { warmName } from './partition-names.js';
import type {
  PartitionChange, PartitionRecord, PartitionReply, PartitionRequest, PartitionsStore, PartitionState, PartitionWriter, StorageUsage,
} from './partitions.store.js';

const TABLES = ['segments', 'event_chunks', 'segment_terms'] as const;

interface PartitionRow {
  id: number;
  name: string;
  state: PartitionState | 'deleting' | 'deleted';
  first_segment_id: number;
  start_ms: number;
  end_ms: number | null;
  user_mounted: number;
  /** The next partition's first segment id; null for the hot one. */
  upper: number | null;
}

const WITH_RANGE = `SELECT p.*, (SELECT min(n.first_segment_id) FROM event_partitions n WHERE n.first_segment_id > p.first_segment_id) AS upper
  FROM event_partitions p`;

export class PostgresPartitions implements PartitionsStore, PartitionWriter {
  constructor(private readonly db: PostgresDatabase) {}

  async list(): Promise<PartitionRecord[]> {
    const rows = await this.db.all<PartitionRow>(
      "SELECT * FROM event_partitions WHERE state IN ('hot', 'warm', 'cold') ORDER BY first_segment_id",
    );
    const records: PartitionRecord[] = [];
    for (const row of rows) {
      // Read from the partition's own tables (no commit keeps a running total on a shared row):
      // PostgreSQL's estimate of its segments once it has analyzed the table, counted before.
      const size = await this.db.get<{ bytes: number; segments: number }>(
        `SELECT pg_total_relation_size('event_chunks_p${row.id}') AS bytes,
           CASE WHEN c.reltuples >= 0 THEN c.reltuples::bigint ELSE (SELECT count(*) FROM segments_p${row.id}) END AS segments
         FROM pg_class c WHERE c.oid = 'segments_p${row.id}'::regclass`,
      );
      records.push({
        id: row.id, name: row.name, state: row.state as PartitionState, firstRow: row.first_segment_id, startMs: row.start_ms,
        endMs: row.end_ms, userMounted: row.user_mounted === 1, eventBytes: size!.bytes, segmentCount: size!.segments,
      });
    }
    return records;
  }

  async deleting(): Promise<boolean> {
    return (await this.db.get("SELECT 1 AS found FROM event_partitions WHERE state = 'deleting' LIMIT 1")) !== undefined;
  }

  async usage(): Promise<StorageUsage> {
    const row = await this.db.get<{ bytes: number }>('SELECT pg_database_size(current_database()) AS bytes');
    return { usedBytes: row!.bytes, freeBytes: 0 };
  }

  partition(request: PartitionRequest): Promise<PartitionReply> {
    return this.db.transaction(async (tx) => {
      await tx.run(`LOCK TABLE ${TABLES.join(', ')} IN ACCESS EXCLUSIVE MODE`);
      switch (request.op) {
        case 'rollover': return rollover(tx, request.nowMs);
        case 'mount': return setMounted(tx, request.name, request.mounted);
        case 'delete': return beginDelete(tx, request.name);
        case 'purge': return purgeStep(tx);
        // PostgreSQL's autovacuum returns space; nothing is asked of it here.
        case 'vacuum': return { more: false };
      }
    });
  }
}

async function rollover(tx: SqlExecutor, nowMs: number): Promise<PartitionChange> {
  const hot = (await tx.get<PartitionRow>(`${WITH_RANGE} WHERE p.state = 'hot'`))!;
  const highest = await tx.get<{ id: number | null }>(`SELECT max(segment_id) AS id FROM segments_p${hot.id}`);
  const bound = Math.max(nowMs, (highest?.id ?? 0) + 1, hot.first_segment_id + 1);
  const next = (await tx.get<{ id: number }>('SELECT max(id) + 1 AS id FROM event_partitions'))!.id;
  for (const table of TABLES) {
    await tx.run(`ALTER TABLE ${table} DETACH PARTITION ${table}_p${hot.id}`);
    await tx.run(`ALTER TABLE ${table}_p${hot.id} ADD CONSTRAINT ${table}_p${hot.id}_range CHECK (${rangeCheck(hot.first_segment_id, bound)})`);
    await tx.run(`ALTER TABLE ${table} ATTACH PARTITION ${table}_p${hot.id} FOR VALUES ${bounds(hot.first_segment_id, bound)}`);
    await tx.run(`CREATE TABLE ${table}_p${next} PARTITION OF ${table} FOR VALUES FROM (${bound}) TO (MAXVALUE)`);
  }
  const name = await freeName(tx, warmName(hot.start_ms));
  await tx.run("UPDATE event_partitions SET name = ?, state = 'warm', end_ms = ? WHERE id = ?", [name, nowMs, hot.id]);
  await tx.run("INSERT INTO event_partitions (id, name, first_segment_id, start_ms, state) VALUES (?, 'writer', ?, ?, 'hot')", [next, bound, nowMs]);
  return { outcome: 'done', name };
}

async function setMounted(tx: SqlExecutor, name: string, mounted: boolean): Promise<PartitionChange> {
  const partition = await visible(tx, name);
  if (!partition) return { outcome: 'not_found', name };
  if (partition.state === 'hot') return { outcome: mounted ? 'done' : 'hot', name };
  if ((partition.state === 'warm') === mounted) return { outcome: 'done', name };
  if (mounted) await attach(tx, partition);
  else await detach(tx, partition);
  await count(tx, partition.id, mounted ? 1 : -1);
  await tx.run('UPDATE event_partitions SET state = ?, user_mounted = ? WHERE id = ?', [mounted ? 'warm' : 'cold', mounted ? 1 : 0, partition.id]);
  await tx.run('UPDATE event_storage SET generation = generation + 1');
  return { outcome: 'done', name };
}

async function beginDelete(tx: SqlExecutor, name: string): Promise<PartitionChange> {
  const partition = await visible(tx, name);
  if (!partition) return { outcome: 'not_found', name };
  if (partition.state === 'hot') return { outcome: 'hot', name };
  if (partition.state === 'warm') {
    await detach(tx, partition);
    await count(tx, partition.id, -1);
  }
  await tx.run("UPDATE event_partitions SET state = 'deleting' WHERE id = ?", [partition.id]);
  await tx.run('UPDATE event_storage SET generation = generation + 1');
  return { outcome: 'done', name };
}

/** Drops the oldest partition being deleted, whole; answers whether another remains. */
async function purgeStep(tx: SqlExecutor): Promise<{ more: boolean }> {
  const partition = await tx.get<PartitionRow>(`${WITH_RANGE} WHERE p.state = 'deleting' ORDER BY p.first_segment_id LIMIT 1`);
  if (!partition) return { more: false };
  const segments = `segments_p${partition.id}`;
  for (const hits of ['watchlist_process_hits', 'feed_process_hits']) {
    await tx.run(`DELETE FROM ${hits} WHERE segment_row IN (SELECT id FROM ${segments})`);
  }
  await tx.run(
    `DELETE FROM processes p USING (SELECT DISTINCT sensor_id, process_id FROM ${segments}) gone
     WHERE p.sensor_id = gone.sensor_id AND p.id = gone.process_id
       AND NOT EXISTS (SELECT 1 FROM segments s WHERE s.sensor_id = p.sensor_id AND s.process_id = p.id)`,
  );
  for (const table of TABLES) await tx.run(`DROP TABLE ${table}_p${partition.id}`);
  await tx.run("UPDATE event_partitions SET state = 'deleted' WHERE id = ?", [partition.id]);
  return { more: (await tx.get("SELECT 1 AS found FROM event_partitions WHERE state = 'deleting'")) !== undefined };
}

async function detach(tx: SqlExecutor, partition: PartitionRow): Promise<void> {
  for (const table of TABLES) await tx.run(`ALTER TABLE ${table} DETACH PARTITION ${table}_p${partition.id}`);
}

async function attach(tx: SqlExecutor, partition: PartitionRow): Promise<void> {
  for (const table of TABLES) {
    await tx.run(`ALTER TABLE ${table} ATTACH PARTITION ${table}_p${partition.id} FOR VALUES ${bounds(partition.first_segment_id, partition.upper!)}`);
  }
}

/** Adds (1) or subtracts (-1) a partition's segments to the per-process and per-host counts. */
async function count(tx: SqlExecutor, id: number, sign: 1 | -1): Promise<void> {
  await tx.run(
    `INSERT INTO process_segment_counts (sensor_id, process_row, segments)
     SELECT sensor_id, process_id, ? * count(*) FROM segments_p${id} GROUP BY 1, 2
     ON CONFLICT (sensor_id, process_row) DO UPDATE SET segments = process_segment_counts.segments + excluded.segments`,
    [sign],
  );
  await tx.run('DELETE FROM process_segment_counts WHERE segments <= 0');
  await tx.run(
    `INSERT INTO host_segment_counts (sensor_id, group_id, hostname, host_type, os_type, segments)
     SELECT p.sensor_id, p.group_id, p.hostname, p.host_type, p.os_type, ? * count(*)
     FROM segments_p${id} s JOIN processes p ON p.sensor_id = s.sensor_id AND p.id = s.process_id GROUP BY 1, 2, 3, 4, 5
     ON CONFLICT (sensor_id, group_id, hostname, host_type, os_type) DO UPDATE SET segments = host_segment_counts.segments + excluded.segments`,
    [sign],
  );
  await tx.run('DELETE FROM host_segment_counts WHERE segments <= 0');
}

/** The first partition starts below every segment id (MINVALUE); ids and bounds are integers of this table. */
const lower = (first: number) => (first === 0 ? 'MINVALUE' : String(first));
const bounds = (first: number, upper: number) => `FROM (${lower(first)}) TO (${upper})`;
const rangeCheck = (first: number, upper: number) =>
  first === 0 ? `segment_id IS NOT NULL AND segment_id < ${upper}` : `segment_id IS NOT NULL AND segment_id >= ${first} AND segment_id < ${upper}`;

function visible(tx: SqlExecutor, name: string): Promise<PartitionRow | undefined> {
  return tx.get<PartitionRow>(`${WITH_RANGE} WHERE p.name = ? AND p.state IN ('hot', 'warm', 'cold')`, [name]);
}

async function freeName(tx: SqlExecutor, name: string): Promise<string> {
  let candidate = name;
  for (let n = 2; (await tx.get("SELECT 1 AS taken FROM event_partitions WHERE name = ? AND state <> 'deleted'", [candidate])) !== undefined; n++) {
    candidate = `${name}_${n}`;
  }
  return candidate;
}
