/**
 * What the PostgreSQL event store reads before a commit's pass: the processes it has no memory
 * of (with their open segments), and row ids in blocks of the event_row_ids sequence.
 */
import type pg from 'pg';
import type { ProcessHost } from './event-store.rows.postgres.js';
import { toSegmentState, type SegmentRow, type SegmentState } from './event-store.state.js';

export interface ProcessState {
  sensorId: number;
  pid: number;
  startMs: number;
  row: number;
  name: string;
  md5: string;
  host: ProcessHost;
  segment: (SegmentState & { sensorId: number }) | undefined;
}

export const processKey = (sensorId: number, pid: number, start: number) => `${sensorId}:${pid}:${start}`;

/** BIGINT columns come back as text from a client of its own; every column read here is a number or text. */
const numeric = (row: Record<string, unknown>, texts: readonly string[] = []) =>
  Object.fromEntries(Object.entries(row).map(([k, v]) => [k, texts.includes(k) ? v : Number(v)]));

/**
 * One index probe per key, forced by the LIMIT inside LATERAL (which PostgreSQL does not flatten
 * into a join). As a plain join of the keys to processes, the planner hashed the whole table
 * until it held some 50,000 processes, and each commit asks for hundreds of keys, nearly all of
 * processes not yet written: 9 ms per commit at 10,000 processes instead of 0.7 ms.
 */
export const PROCESSES_BY_KEY = `
  SELECT p.* FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) AS k(sensor_id, pid, start_ms)
  CROSS JOIN LATERAL (
    SELECT sensor_id, id, pid, start_ms, process_name, md5, group_id, hostname, host_type, os_type FROM processes
    WHERE sensor_id = k.sensor_id AND pid = k.pid AND start_ms = k.start_ms LIMIT 1
  ) p`;

/** Each process's latest segment at or above the hot floor, by a backward probe of (sensor, process, segment) for the same reason. */
export const LATEST_HOT_SEGMENTS = `
  SELECT s.*, (SELECT coalesce(max(c.chunk), -1) + 1 FROM event_chunks c
    WHERE c.sensor_id = s.sensor_id AND c.segment_row = s.id AND c.segment_id = s.segment_id) AS next_chunk
  FROM unnest($1::bigint[], $2::bigint[]) AS k(sensor_id, process_id)
  CROSS JOIN LATERAL (
    SELECT * FROM segments WHERE sensor_id = k.sensor_id AND process_id = k.process_id AND segment_id >= $3 ORDER BY segment_id DESC LIMIT 1
  ) s`;

/**
 * The processes of these (sensor, pid, start) keys that have rows, each with its latest segment
 * in the hot partition (segment id at least `hotFloor`): the one its next events may continue.
 */
export async function readProcesses(client: pg.PoolClient, keys: readonly [number, number, number][], hotFloor: number): Promise<ProcessState[]> {
  const found = await client.query(PROCESSES_BY_KEY, [keys.map((k) => k[0]), keys.map((k) => k[1]), keys.map((k) => k[2])]);
  if (found.rows.length === 0) return [];
  const processes = found.rows.map((r: Record<string, unknown>) => numeric(r, ['process_name', 'md5', 'hostname', 'host_type', 'os_type']) as {
    sensor_id: number; id: number; pid: number; start_ms: number; process_name: string; md5: string;
    group_id: number; hostname: string; host_type: string; os_type: string;
  });
  const segments = await client.query(LATEST_HOT_SEGMENTS, [processes.map((p) => p.sensor_id), processes.map((p) => p.id), hotFloor]);
  const open = new Map(segments.rows.map((r: Record<string, unknown>) => {
    const row = numeric(r) as unknown as SegmentRow & { sensor_id: number };
    return [`${row.sensor_id}:${row.process_id}`, { ...toSegmentState(row), sensorId: row.sensor_id }];
  }));
  return processes.map((p) => ({
    sensorId: p.sensor_id, pid: p.pid, startMs: p.start_ms, row: p.id, name: p.process_name, md5: p.md5,
    host: [p.sensor_id, p.group_id, p.hostname, p.host_type, p.os_type], segment: open.get(`${p.sensor_id}:${p.id}`),
  }));
}

/** Ids per nextval of event_row_ids (its INCREMENT). */
const ID_BLOCK = 1000;

/** Row ids for processes and segments: blocks of the shared sequence, so servers never hand out the same id. */
export class RowIds {
  private current = { next: 0, end: 0 };
  private readonly blocks: number[] = [];

  /** How many blocks to take so that `count` ids can be handed out without asking the database. */
  blocksMissing(count: number): number {
    const missing = count - (this.current.end - this.current.next) - this.blocks.length * ID_BLOCK;
    return missing <= 0 ? 0 : Math.ceil(missing / ID_BLOCK);
  }

  add(firstIds: readonly number[]): void {
    this.blocks.push(...firstIds);
  }

  next(): number {
    if (this.current.next >= this.current.end) {
      const first = this.blocks.shift();
      if (first === undefined) throw new Error('event row ids were under-reserved');
      this.current = { next: first, end: first + ID_BLOCK };
    }
    return this.current.next++;
  }
}

/** What a commit learns in its first round trip. */
export interface LockedSensors {
  /** Each locked sensor's last committed sequence. */
  sequences: Map<number, number>;
  /** The hot partition's lowest segment id. */
  hotFloor: number;
  /** The first ids of the row id blocks taken. */
  idBlocks: number[];
}

/**
 * One round trip (with the transaction's BEGIN when `begin`): locks the sensors' sequence rows in
 * id order (so two commits cannot wait on each other), adding those of sensors never written for,
 * reading their sequences; reads the hot partition's floor, and takes `blocks` row id blocks. The
 * sequences are not on the sensor rows, which check-ins update (migration 10). The ids are
 * integers written into the text, since a statement with parameters cannot share its round trip
 * with BEGIN.
 */
export async function lockSensors(client: pg.PoolClient, sensorIds: readonly number[], blocks: number, begin: boolean): Promise<LockedSensors> {
  const ids = [...new Set(sensorIds)].sort((a, b) => a - b);
  if (!ids.every(Number.isSafeInteger) || !Number.isSafeInteger(blocks)) throw new Error('sensor ids and id blocks must be integers');
  const list = ids.join(', ');
  const sql = `${begin ? 'BEGIN; ' : ''}
    INSERT INTO sensor_sequences (sensor_id, last_sequence) SELECT unnest(ARRAY[${list}]::bigint[]), 0 ON CONFLICT DO NOTHING;
    WITH locked AS (SELECT sensor_id, last_sequence FROM sensor_sequences WHERE sensor_id IN (${list}) ORDER BY sensor_id FOR NO KEY UPDATE)
    SELECT ARRAY(SELECT sensor_id FROM locked) AS ids, ARRAY(SELECT last_sequence FROM locked) AS sequences,
      (SELECT first_segment_id FROM event_partitions WHERE state = 'hot') AS hot,
      ARRAY(SELECT nextval('event_row_ids') FROM generate_series(1, ${blocks})) AS blocks`;
  const answer = (await client.query(sql)) as unknown as pg.QueryResult | pg.QueryResult[];
  const row = (Array.isArray(answer) ? answer.at(-1)! : answer).rows[0] as { ids: string[]; sequences: string[]; hot: string | null; blocks: string[] };
  return {
    sequences: new Map(row.ids.map((id, i) => [Number(id), Number(row.sequences[i])])),
    hotFloor: Number(row.hot ?? 0),
    idBlocks: row.blocks.map(Number),
  };
}
