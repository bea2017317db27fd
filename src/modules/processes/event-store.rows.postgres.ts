/**
 * What one commit of the PostgreSQL event store writes, gathered in memory during the commit's
 * pass and sent at its end: new rows by binary COPY (processes, segments, chunks, term sets),
 * changed rows by one statement over arrays each (segments, counts, counters, sequences), and
 * the few single-row changes of processes read back from the database.
 */
import type pg from 'pg';
import { BinaryCopyRows } from '../../db/dialects/postgres-copy.js';
import { COUNTED_TYPES } from '../../ingest/prepare.js';
import type { SegmentState } from './event-store.state.js';

/** A process row created in this commit, written at its end with everything learnt meanwhile. */
export interface NewProcessRow {
  sensorId: number; id: number; pid: number; startMs: number; host: ProcessHost;
  path: string; name: string; cmdline: string; username: string; uid: string; md5: string; sha256: string;
  parentPid: number; parentStartMs: number | null; parentName: string; parentMd5: string; endMs: number | null;
  words: Set<string>;
}

/** The columns a process start fills in, in the order of PROCESS_START_COLUMNS. */
export type ProcessStartValues = [string, string, string, string, string, string, string, number, number | null, string, string];
const PROCESS_START_COLUMNS = [
  'path', 'process_name', 'cmdline', 'username', 'uid', 'md5', 'sha256', 'parent_pid', 'parent_start_ms', 'parent_name', 'parent_md5',
];

/** The host columns of a process row, which host_segment_counts counts by. */
export type ProcessHost = readonly [sensorId: number, groupId: number, hostname: string, hostType: string, osType: string];

const COUNT_COLUMNS = COUNTED_TYPES.map((type) => `${type}_count`);

export class CommitRows {
  readonly newProcesses = new Map<number, NewProcessRow>();
  /** Changes to process rows that existed before this commit, applied in order. */
  private readonly processChanges: { sensorId: number; row: number; sql: string; values: unknown[] }[] = [];
  readonly touchedSegments = new Set<SegmentState & { sensorId: number }>();
  readonly chunks = new BinaryCopyRows('event_chunks', [
    ['sensor_id', 'int8'], ['segment_id', 'int8'], ['segment_row', 'int8'], ['chunk', 'int4'], ['event_count', 'int4'], ['data', 'bytea'], ['written_ms', 'int8'],
  ]);
  readonly termSets = new BinaryCopyRows('segment_terms', [
    ['sensor_id', 'int8'], ['segment_id', 'int8'], ['segment_row', 'int8'], ['chunk', 'int4'], ['terms', 'text[]'],
  ]);
  /** (field, value) pairs to make sure the dictionary has, keyed `field:value`. */
  readonly dictionary = new Map<string, [string, string]>();
  private readonly perProcess = new Map<string, [sensorId: number, row: number, segments: number]>();
  private readonly perHost = new Map<string, { host: ProcessHost; segments: number }>();
  private readonly counters = new Map<string, [sensorId: number, name: string, value: number]>();
  private readonly sequences = new Map<number, number>();

  completeProcess(sensorId: number, row: number, values: ProcessStartValues): void {
    const sets = PROCESS_START_COLUMNS.map((column, i) => `${column} = $${i + 3}`).join(', ');
    this.processChanges.push({ sensorId, row, sql: `UPDATE processes SET ${sets} WHERE sensor_id = $1 AND id = $2`, values });
  }

  endProcess(sensorId: number, row: number, endMs: number): void {
    this.processChanges.push({ sensorId, row, sql: 'UPDATE processes SET end_ms = $3 WHERE sensor_id = $1 AND id = $2', values: [endMs] });
  }

  addWords(sensorId: number, row: number, words: readonly string[]): void {
    this.processChanges.push({
      sensorId, row, values: [words],
      sql: 'UPDATE processes SET cmdline_words = ARRAY(SELECT DISTINCT unnest(cmdline_words || $3::text[])) WHERE sensor_id = $1 AND id = $2',
    });
  }

  countSegment(sensorId: number, processRow: number, host: ProcessHost): void {
    const key = `${sensorId}:${processRow}`;
    const counted = this.perProcess.get(key);
    if (counted) counted[2]++;
    else this.perProcess.set(key, [sensorId, processRow, 1]);
    const hostKey = host.join('\u0000');
    const perHost = this.perHost.get(hostKey);
    if (perHost) perHost.segments++;
    else this.perHost.set(hostKey, { host, segments: 1 });
  }

  addCounter(sensorId: number, name: string, value: number): void {
    const key = `${sensorId}:${name}`;
    const counted = this.counters.get(key);
    if (counted) counted[2] += value;
    else this.counters.set(key, [sensorId, name, value]);
  }

  setSequence(sensorId: number, sequence: number): void {
    this.sequences.set(sensorId, sequence);
  }

  /** Sends everything, in an order that keeps concurrent commits from deadlocking on shared rows. */
  async send(client: pg.PoolClient): Promise<void> {
    await this.sendDictionary(client);
    await this.sendProcesses(client);
    await this.sendSegments(client);
    await this.chunks.send(client);
    await this.termSets.send(client);
    await this.sendCounts(client);
  }

  /** Sorted, so that two servers adding the same new terms wait for each other rather than deadlock. */
  private async sendDictionary(client: pg.PoolClient): Promise<void> {
    if (this.dictionary.size === 0) return;
    const pairs = [...this.dictionary.values()].sort((a, b) => (a[0] === b[0] ? compare(a[1], b[1]) : compare(a[0], b[0])));
    await client.query(
      'INSERT INTO event_terms (field, value) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING',
      [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
    );
  }

  private async sendProcesses(client: pg.PoolClient): Promise<void> {
    const rows = new BinaryCopyRows('processes', [
      ['sensor_id', 'int8'], ['id', 'int8'], ['pid', 'int8'], ['start_ms', 'int8'], ['group_id', 'int8'], ['hostname', 'text'],
      ['host_type', 'text'], ['os_type', 'text'], ['path', 'text'], ['process_name', 'text'], ['cmdline', 'text'], ['username', 'text'],
      ['uid', 'text'], ['md5', 'text'], ['sha256', 'text'], ['parent_pid', 'int8'], ['parent_start_ms', 'int8'], ['parent_name', 'text'],
      ['parent_md5', 'text'], ['end_ms', 'int8'], ['cmdline_words', 'text[]'],
    ]);
    for (const p of this.newProcesses.values()) {
      const [, groupId, hostname, hostType, osType] = p.host;
      rows.add([
        p.sensorId, p.id, p.pid, p.startMs, groupId, hostname, hostType, osType, p.path, p.name, p.cmdline, p.username, p.uid, p.md5,
        p.sha256, p.parentPid, p.parentStartMs, p.parentName, p.parentMd5, p.endMs, [...p.words],
      ]);
    }
    await rows.send(client);
    for (const change of this.processChanges) await client.query(change.sql, [change.sensorId, change.row, ...change.values]);
  }

  private async sendSegments(client: pg.PoolClient): Promise<void> {
    const inserted = new BinaryCopyRows('segments', [
      ['sensor_id', 'int8'], ['id', 'int8'], ['process_id', 'int8'], ['segment_id', 'int8'], ['first_event_ms', 'int8'],
      ['last_update_ms', 'int8'], ['last_server_update_ms', 'int8'], ['event_count', 'int4'], ...COUNT_COLUMNS.map((c) => [c, 'int4'] as const),
    ]);
    const updated: (SegmentState & { sensorId: number })[] = [];
    for (const s of this.touchedSegments) {
      if (!s.unwritten) {
        updated.push(s);
        continue;
      }
      inserted.add([s.sensorId, s.row, s.processRow, s.segmentId, s.firstEventMs, s.lastUpdateMs, s.lastServerUpdateMs, s.eventCount, ...s.counts]);
    }
    await inserted.send(client);
    for (const s of this.touchedSegments) s.unwritten = false;
    if (updated.length === 0) return;
    const columns = ['last_update_ms', 'last_server_update_ms', 'event_count', ...COUNT_COLUMNS];
    const arrays = [
      updated.map((s) => s.sensorId), updated.map((s) => s.row), updated.map((s) => s.segmentId),
      updated.map((s) => s.lastUpdateMs), updated.map((s) => s.lastServerUpdateMs), updated.map((s) => s.eventCount),
      ...COUNTED_TYPES.map((_, i) => updated.map((s) => s.counts[i]!)),
    ];
    const unnest = arrays.map((_, i) => `$${i + 1}::bigint[]`).join(', ');
    await client.query(
      `UPDATE segments s SET ${columns.map((c) => `${c} = u.${c}`).join(', ')}
       FROM unnest(${unnest}) AS u(sensor_id, id, segment_id, ${columns.join(', ')})
       WHERE s.sensor_id = u.sensor_id AND s.id = u.id AND s.segment_id = u.segment_id`,
      arrays,
    );
  }

  private async sendCounts(client: pg.PoolClient): Promise<void> {
    if (this.perProcess.size > 0) {
      const rows = [...this.perProcess.values()];
      await client.query(
        `INSERT INTO process_segment_counts (sensor_id, process_row, segments) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::int[])
         ON CONFLICT (sensor_id, process_row) DO UPDATE SET segments = process_segment_counts.segments + excluded.segments`,
        [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])],
      );
    }
    if (this.perHost.size > 0) {
      const rows = [...this.perHost.values()];
      await client.query(
        `INSERT INTO host_segment_counts (sensor_id, group_id, hostname, host_type, os_type, segments)
         SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::int[])
         ON CONFLICT (sensor_id, group_id, hostname, host_type, os_type) DO UPDATE SET segments = host_segment_counts.segments + excluded.segments`,
        [0, 1, 2, 3, 4].map((i) => rows.map((r) => r.host[i])).concat([rows.map((r) => r.segments)]),
      );
    }
    if (this.counters.size > 0) {
      const rows = [...this.counters.values()];
      await client.query(
        `INSERT INTO ingest_counters (sensor_id, name, value) SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[])
         ON CONFLICT (sensor_id, name) DO UPDATE SET value = ingest_counters.value + excluded.value`,
        [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])],
      );
    }
    if (this.sequences.size > 0) {
      await client.query(
        'UPDATE sensor_sequences s SET last_sequence = u.sequence FROM unnest($1::bigint[], $2::bigint[]) AS u(id, sequence) WHERE s.sensor_id = u.id',
        [[...this.sequences.keys()], [...this.sequences.values()]],
      );
    }
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
