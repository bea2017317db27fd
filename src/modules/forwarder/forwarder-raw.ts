/**
 * Raw sensor events for the forwarder: the event chunks the writer committed, in the order of
 * when it wrote them (written_ms, then segment row and chunk number), decoded and laid out as
 * cb-event-forwarder's ingress.event.* records. The key and its horizon are those of every
 * source (forwarder-sources.ts). Each database keeps chunk bytes its own way, so the wiring gives
 * the loader: SQLite's chunk files (forwarder-raw.sqlite.ts), PostgreSQL's deflated rows
 * (forwarder-raw.postgres.ts).
 */
import type { SqlDatabase, SqlValue } from '../../db/database.js';
import { decodeChunk } from '../../ingest/event-codec.js';
import type { SensorEvent } from '../../ingest/event.schemas.js';
import { processId } from '../../domain/process-id.js';
import { RawEventRecord } from './forwarder-raw-text.js';
import type { RecordOrigin } from './forwarder-records.js';
import type { ForwardSource, Position, SourceBatch } from './forwarder-sources.js';

export interface ChunkRef {
  written_ms: number;
  segment_row: number;
  chunk: number;
  segment_id: number;
  sensor_id: number;
  pid: number;
  start_ms: number;
  hostname: string;
  path: string;
  md5: string;
}

/** Where one database keeps chunk bytes: the columns that locate them and how to read them. */
export interface ChunkLoader<Ref extends ChunkRef> {
  table: string;
  locator: string;
  /** Joins a chunk's segment to its process. */
  joins: string;
  load(refs: readonly Ref[]): (string | Buffer | undefined)[];
}

/**
 * The records of recently read chunks, shared by every output of this server: outputs that keep
 * pace read the same chunks within moments, and decoding and laying out an event costs more than
 * delivering it. Their text is shared too (each record keeps it per format).
 */
class RecentChunks {
  private readonly records = new Map<string, RawEventRecord[]>();

  constructor(private readonly capacity: number) {}

  get(key: string): RawEventRecord[] | undefined {
    return this.records.get(key);
  }

  set(key: string, records: RawEventRecord[]): void {
    if (this.records.size >= this.capacity) this.records.delete(this.records.keys().next().value!);
    this.records.set(key, records);
  }
}

const RECENT_CHUNKS = 4096;

/** Raw events of the listed Vigil event types (all when `types` is undefined). */
export class RawEventSource<Ref extends ChunkRef> implements ForwardSource {

  constructor(
    private readonly db: SqlDatabase,
    private readonly loader: ChunkLoader<Ref>,
    private readonly origin: RecordOrigin,
    private readonly types?: ReadonlySet<SensorEvent['type']>,
    private readonly recent = new RecentChunks(RECENT_CHUNKS),
  ) {
  }

  /** The same source keeping only events of these types. */
  only(types: ReadonlySet<SensorEvent['type']> | undefined): RawEventSource<Ref> {
    return new RawEventSource(this.db, this.loader, this.origin, types, this.recent);
  }

  start(fromMs: number): Position {
    return [fromMs, -1, -1];
  }

  /** `limit` counts chunks: a chunk holds one process's events of one ingest commit. */
  async read(after: Position, untilMs: number, limit: number): Promise<SourceBatch | undefined> {
    const { table, locator, joins } = this.loader;
    const refs = await this.db.all<Ref>(
      `SELECT c.written_ms, c.segment_row, c.chunk, s.segment_id, p.sensor_id, p.pid, p.start_ms, p.hostname, p.path, p.md5, ${locator}
       FROM ${table} c ${joins}
       WHERE c.written_ms IS NOT NULL AND (c.written_ms, c.segment_row, c.chunk) > (?, ?, ?) AND c.written_ms <= ?
       ORDER BY c.written_ms, c.segment_row, c.chunk LIMIT ?`,
      [...(after as SqlValue[]), untilMs, limit],
    );
    if (refs.length === 0) return undefined;
    const keys = refs.map((ref) => `${ref.sensor_id}:${ref.segment_row}:${ref.chunk}`);
    const missing = refs.filter((_, i) => this.recent.get(keys[i]!) === undefined);
    const data = this.loader.load(missing);
    missing.forEach((ref, i) => this.recent.set(`${ref.sensor_id}:${ref.segment_row}:${ref.chunk}`, this.recordsOf(ref, data[i])));
    const records: RawEventRecord[] = [];
    for (const key of keys) {
      for (const record of this.recent.get(key) ?? []) {
        if (this.types === undefined || this.types.has(record.event.type)) records.push(record);
      }
    }
    const last = refs.at(-1)!;
    return { records, last: [last.written_ms, last.segment_row, last.chunk] };
  }

  private recordsOf(ref: Ref, chunk: string | Buffer | undefined): RawEventRecord[] {
    // A chunk whose bytes are gone (its partition deleted meanwhile) has nothing left to send.
    if (chunk === undefined) return [];
    const process = { sensorId: ref.sensor_id, pid: ref.pid, startMs: ref.start_ms, hostname: ref.hostname, path: ref.path, md5: ref.md5, segmentId: ref.segment_id };
    const facts = { process, guid: processId(process), origin: this.origin };
    return decodeChunk(chunk, ref.pid, ref.start_ms).map((event) => new RawEventRecord(event, facts));
  }

  async newestMs(): Promise<number | null> {
    const row = await this.db.get<{ newest: number | null }>(`SELECT MAX(written_ms) AS newest FROM ${this.loader.table}`);
    return row?.newest ?? null;
  }
}
