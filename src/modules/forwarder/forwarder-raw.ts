/**
 * Raw sensor events for the forwarder: the event chunks the writer committed, in the order of
 * when it wrote them (written_ms, then segment row and chunk number), decoded and laid out as
 * cb-event-forwarder's ingress.event.* records. The key and its horizon are those of every
 * source (forwarder-sources.ts). Each database keeps chunk bytes its own way, so the wiring gives
 * the loader: SQLite's chunk files (forwarder-raw.sqlite.ts), PostgreSQL's deflated rows
 * (forwarder-raw.postgres.ts).
 */
import type { SqlDatabase, SqlValue } from '../../db/database.js';
import type { SensorEvent } from '../../ingest/event.schemas.js';
import { processId } from '../../domain/process-id.js';
import { RawChunk, type RawEventRecord } from './forwarder-raw-text.js';
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
 * Recently read chunks, located in their text, shared by every output of this server: outputs
 * that keep pace read the same chunks within moments. A chunk keeps its text, not its records'
 * (RawChunk says why). Chunks are kept only while another output reads raw events too: for one
 * output alone the cache saved nothing, and keeping its 4,096 chunks past their batch (the Map,
 * the collector's work on what it kept) made reading and writing a tenth dearer.
 */
export class RecentChunks {
  private readonly chunks = new Map<string, RawChunk>();
  /** When each reader (one output's view of the source) last read. */
  private readonly readers = new Map<object, number>();

  constructor(private readonly capacity: number, private readonly sharedWithinMs = SHARED_WITHIN_MS) {}

  get empty(): boolean {
    return this.chunks.size === 0;
  }

  /** Notes that `reader` reads at `nowMs`; whether another reader read lately, so that what this one reads is worth keeping. */
  reading(reader: object, nowMs: number): boolean {
    this.readers.set(reader, nowMs);
    let shared = false;
    for (const [other, atMs] of this.readers) {
      if (nowMs - atMs > this.sharedWithinMs) this.readers.delete(other);
      else if (other !== reader) shared = true;
    }
    return shared;
  }

  get(key: string): RawChunk | undefined {
    return this.chunks.get(key);
  }

  set(key: string, chunk: RawChunk): void {
    if (this.chunks.size >= this.capacity) this.chunks.delete(this.chunks.keys().next().value!);
    this.chunks.set(key, chunk);
  }
}

/** Outputs take turns of up to 20 batches each (forwarder-turns.ts): one that read within this long still reads. */
const SHARED_WITHIN_MS = 30_000;
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
    const keyOf = (ref: Ref) => `${ref.sensor_id}:${ref.segment_row}:${ref.chunk}`;
    const keep = this.recent.reading(this, Date.now());
    // Taken from the cache before loading the rest, whose entries may push some of them out.
    const chunks = this.recent.empty ? new Array<RawChunk | undefined>(refs.length).fill(undefined) : refs.map((ref) => this.recent.get(keyOf(ref)));
    const missing: number[] = [];
    for (let i = 0; i < chunks.length; i++) if (chunks[i] === undefined) missing.push(i);
    const data = this.loader.load(missing.map((i) => refs[i]!));
    missing.forEach((i, j) => {
      const chunk = (chunks[i] = this.chunkOf(refs[i]!, data[j]));
      if (chunk !== undefined && keep) this.recent.set(keyOf(refs[i]!), chunk);
    });
    const records: RawEventRecord[] = [];
    for (const chunk of chunks) chunk?.addRecords(this.types, records);
    const last = refs.at(-1)!;
    return { records, last: [last.written_ms, last.segment_row, last.chunk] };
  }

  private chunkOf(ref: Ref, data: string | Buffer | undefined): RawChunk | undefined {
    // A chunk whose bytes are gone (its partition deleted meanwhile) has nothing left to send.
    if (data === undefined) return undefined;
    const process = { sensorId: ref.sensor_id, pid: ref.pid, startMs: ref.start_ms, hostname: ref.hostname, path: ref.path, md5: ref.md5, segmentId: ref.segment_id };
    return new RawChunk(typeof data === 'string' ? data : data.toString('utf8'), { process, guid: processId(process), origin: this.origin });
  }

  async newestMs(): Promise<number | null> {
    const row = await this.db.get<{ newest: number | null }>(`SELECT MAX(written_ms) AS newest FROM ${this.loader.table}`);
    return row?.newest ?? null;
  }
}
