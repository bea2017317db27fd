/**
 * Reads of one process and its neighbourhood: its row, segments and events, its children and
 * siblings, and what the server knows of the binaries its events name. Written once against
 * SqlDatabase; process-detail.store.contract.ts is the contract every dialect must pass.
 *
 * Every read is an indexed lookup: a process by (sensor, pid, start), its segments by
 * (process_id, segment_id), children and siblings by (sensor, parent_pid, parent_start_ms), and a
 * segment's events through the dialect's chunk source (chunk-files.sqlite.ts on the embedded store).
 * Segments of unmounted partitions are left out (hidden-segments.ts): a process with no other is
 * not found.
 */
import type { SqlDatabase, SqlValue } from '../../db/database.js';
import type { ProcessKey } from '../../domain/process-id.js';
import type { SensorEvent } from '../../ingest/event.schemas.js';
import { HIDDEN_RANGES_SQL, toRanges, visibleRows } from '../partitions/hidden-segments.js';
import { decodeChunk } from '../../ingest/event-codec.js';
import { mergeSpans, type ProcessRecord, type SegmentRecord, type SegmentSpan } from './process-document.js';
import {
  PROCESS_CONTEXT_COLUMNS, PROCESS_CONTEXT_JOINS, processRecord, segmentRecord, type ProcessContextColumns, type SegmentColumns,
} from './process-rows.js';

/** The groups whose processes a read may return: every group, or these. */
export type GroupScope = 'all' | readonly number[];

export interface RelatedProcess {
  process: ProcessRecord;
  /** All of its segments, merged. */
  span: SegmentSpan;
}

export interface BinarySignature {
  /** Lowercase. */
  md5: string;
  /** The sensor's verdict, or "(Unknown)" when it could not check. */
  digsigResult: string;
  digsigPublisher: string | undefined;
}

export interface Md5Frequency {
  /** Sensors in scope that ran a process from this binary. */
  hostCount: number;
  /** Sensors in scope. */
  globalCount: number;
  /** Process segments (search documents) of such processes. */
  numDocs: number;
}

/** Where a dialect keeps the stored chunks of segments (ingest/event-codec.ts). */
export interface SegmentChunkSource {
  /** The chunks of each segment row given, in chunk order, one list per row in the order given. */
  read(segmentRows: readonly number[]): Promise<(string | Buffer)[][]>;
}

export interface ProcessDetailStore {
  /** The process with this key that has at least one segment; undefined otherwise. */
  find(key: ProcessKey): Promise<ProcessRecord | undefined>;
  /** Its segments, oldest first. */
  segments(processRow: number): Promise<SegmentRecord[]>;
  /**
   * Processes of `parent`'s sensor whose parent it is, in `scope`, with a segment: by start, then
   * pid, at most `limit`.
   */
  children(parent: ProcessKey, scope: GroupScope, limit: number): Promise<RelatedProcess[]>;
  /**
   * Other processes of its sensor with the same parent (for an unknown parent: the same parent
   * pid and no parent start), in `scope`, with a segment: by start, then pid, at most `limit`.
   */
  siblings(process: ProcessRecord, scope: GroupScope, limit: number): Promise<RelatedProcess[]>;
  /** The events of each segment row given, in storage order, one list per row in the order given. */
  events(process: ProcessKey, segmentRows: readonly number[]): Promise<SensorEvent[][]>;
  /** Signatures of the known binaries among these md5s that a sensor in `scope` observed. */
  binarySignatures(md5s: readonly string[], scope: GroupScope): Promise<BinarySignature[]>;
  /** How widely processes from this binary ran (lowercase md5), counting sensors in `scope`. */
  md5Frequency(md5: string, scope: GroupScope): Promise<Md5Frequency>;
}

interface SegmentRow extends SegmentColumns {
  id: number;
  process_id: number;
}

/** The process row with its group's name, its sensor's addresses and its parent's row. */
const PROCESS_SELECT = `SELECT ${PROCESS_CONTEXT_COLUMNS} FROM processes p ${PROCESS_CONTEXT_JOINS}`;

function hasSegment(visible: string): string {
  return `EXISTS (SELECT 1 FROM segments sg WHERE sg.process_id = p.id${visible})`;
}

/** SQLite's default limit on bound parameters is far above this; it keeps IN lists modest. */
const IN_LIST_SIZE = 500;

export class SqlProcessDetailStore implements ProcessDetailStore {
  constructor(private readonly db: SqlDatabase, private readonly chunks: SegmentChunkSource) {}

  async find(key: ProcessKey): Promise<ProcessRecord | undefined> {
    const row = await this.db.get<ProcessContextColumns>(
      `${PROCESS_SELECT} WHERE p.sensor_id = ? AND p.pid = ? AND p.start_ms = ? AND ${hasSegment(await this.visible('sg.id'))}`,
      [key.sensorId, key.pid, key.startMs],
    );
    return row && processRecord(row);
  }

  async segments(processRow: number): Promise<SegmentRecord[]> {
    const rows = await this.db.all<SegmentRow>(
      `SELECT * FROM segments WHERE process_id = ?${await this.visible('id')} ORDER BY segment_id`, [processRow],
    );
    return rows.map((row) => segmentRecord(row, row.id));
  }

  async children(parent: ProcessKey, scope: GroupScope, limit: number): Promise<RelatedProcess[]> {
    return this.related('p.parent_pid = ? AND p.parent_start_ms = ?', [parent.pid, parent.startMs], parent.sensorId, scope, limit);
  }

  async siblings(process: ProcessRecord, scope: GroupScope, limit: number): Promise<RelatedProcess[]> {
    const parent = process.parentStartMs === null
      ? { where: 'p.parent_pid = ? AND p.parent_start_ms IS NULL', params: [process.parentPid] }
      : { where: 'p.parent_pid = ? AND p.parent_start_ms = ?', params: [process.parentPid, process.parentStartMs] };
    return this.related(`${parent.where} AND p.id <> ?`, [...parent.params, process.row], process.sensorId, scope, limit);
  }

  async events(process: ProcessKey, segmentRows: readonly number[]): Promise<SensorEvent[][]> {
    const segments = await this.chunks.read(segmentRows);
    return segments.map((chunks) => chunks.flatMap((data) => decodeChunk(data, process.pid, process.startMs)));
  }

  async binarySignatures(md5s: readonly string[], scope: GroupScope): Promise<BinarySignature[]> {
    const signatures: BinarySignature[] = [];
    if (scope !== 'all' && scope.length === 0) return signatures;
    for (let i = 0; i < md5s.length; i += IN_LIST_SIZE) {
      const part = md5s.slice(i, i + IN_LIST_SIZE);
      const observed = scope === 'all' ? '' : `AND EXISTS (SELECT 1 FROM binary_observations o JOIN sensors s ON s.id = o.sensor_id
        WHERE o.md5 = b.md5 AND s.group_id IN (${marks(scope.length)}))`;
      const rows = await this.db.all<{ md5: string; metadata: string }>(
        `SELECT b.md5, b.metadata FROM binaries b WHERE b.md5 IN (${marks(part.length)}) ${observed}`,
        [...part, ...(scope === 'all' ? [] : scope)],
      );
      for (const row of rows) {
        const { digsig } = JSON.parse(row.metadata) as { digsig?: { result?: string; publisher?: string } };
        signatures.push({ md5: row.md5, digsigResult: digsig?.result ?? '(Unknown)', digsigPublisher: digsig?.publisher });
      }
    }
    return signatures;
  }

  async md5Frequency(md5: string, scope: GroupScope): Promise<Md5Frequency> {
    if (scope !== 'all' && scope.length === 0) return { hostCount: 0, globalCount: 0, numDocs: 0 };
    const inScope = (column: string) => (scope === 'all' ? '' : ` AND ${column} IN (${marks(scope.length)})`);
    const scopeParams = scope === 'all' ? [] : [...scope];
    const hosts = await this.db.get<{ hosts: number; docs: number }>(
      `SELECT COUNT(DISTINCT p.sensor_id) AS hosts, COUNT(sg.id) AS docs
       FROM processes p JOIN segments sg ON sg.process_id = p.id WHERE p.md5 = ?${inScope('p.group_id')}${await this.visible('sg.id')}`,
      [md5, ...scopeParams],
    );
    const sensors = await this.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM sensors WHERE 1 = 1${inScope('group_id')}`, scopeParams);
    return { hostCount: hosts?.hosts ?? 0, globalCount: sensors?.n ?? 0, numDocs: hosts?.docs ?? 0 };
  }

  private async related(where: string, params: SqlValue[], sensorId: number, scope: GroupScope, limit: number): Promise<RelatedProcess[]> {
    if (limit === 0 || (scope !== 'all' && scope.length === 0)) return [];
    const inScope = scope === 'all' ? '' : ` AND p.group_id IN (${marks(scope.length)})`;
    const rows = await this.db.all<ProcessContextColumns>(
      `${PROCESS_SELECT} WHERE p.sensor_id = ? AND ${where}${inScope} AND ${hasSegment(await this.visible('sg.id'))} ORDER BY p.start_ms, p.pid LIMIT ?`,
      [sensorId, ...params, ...(scope === 'all' ? [] : scope), limit],
    );
    const segments = await this.segmentsOf(rows.map((row) => row.process_row));
    return rows.map((row) => ({ process: processRecord(row), span: mergeSpans(segments.get(row.process_row) ?? []) }));
  }

  /** ` AND <column> NOT BETWEEN …` leaving out segments of unmounted partitions, or nothing. */
  protected async visible(column: string): Promise<string> {
    return visibleRows(column, toRanges(await this.db.all<{ first_row: number; last_row: number }>(HIDDEN_RANGES_SQL)));
  }

  /** The segments of several processes, by process row. */
  private async segmentsOf(processRows: readonly number[]): Promise<Map<number, SegmentRecord[]>> {
    const byProcess = new Map<number, SegmentRecord[]>();
    const visible = await this.visible('id');
    for (let i = 0; i < processRows.length; i += IN_LIST_SIZE) {
      const part = processRows.slice(i, i + IN_LIST_SIZE);
      const rows = await this.db.all<SegmentRow>(
        `SELECT * FROM segments WHERE process_id IN (${marks(part.length)})${visible} ORDER BY process_id, segment_id`, part,
      );
      for (const row of rows) {
        const segment = segmentRecord(row, row.id);
        const list = byProcess.get(row.process_id);
        if (list) list.push(segment);
        else byProcess.set(row.process_id, [segment]);
      }
    }
    return byProcess;
  }
}

function marks(count: number): string {
  return new Array<string>(count).fill('?').join(', ');
}
