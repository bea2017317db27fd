/**
 * The embedded event store. One synchronous SQLite transaction per group of batches, with the
 * state of recently active processes (their row, open segment) kept in memory so that the common
 * path is appends: a chunk row per (segment, batch), a posting per distinct term per segment (per
 * process for command-line words), and each new or changed process and segment row written once,
 * at the end of the transaction. The store hands out the row ids itself (it is the only writer
 * of these tables), which is what lets it defer those rows. Segments belong to partitions by row
 * (docs/adr/0009-partitions.md): a segment below the hot partition's first row takes no more events.
 */
import { LRUCache } from 'lru-cache';
import type { SqliteDatabase } from '../../db/dialects/sqlite.js';
import { baseName } from '../../ingest/normalize.js';
import { COUNTED_TYPES, summarize, type EventsSummary, type PreparedProcess } from '../../ingest/prepare.js';
import { countSequence, countStored } from '../../ingest/batch-sequence.js';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import { ChunkAppender } from './chunk-files.sqlite.js';
import { chunkRows, decodeEvent } from '../../ingest/event-codec.js';
import { DEFAULT_CACHE_BOUNDS, type EventStore, type IngestBatch, type IngestOutcome, type SegmentRules } from '../../ingest/event-store.js';
import { insertCountedPairs, insertPairs, prepareEventStatements, type EventStatements } from './event-store.statements.sqlite.js';
import { NewSegmentCounts, type ProcessHost } from './event-store.counts.sqlite.js';
import { PostedTerms, sortPostings } from './event-store.postings.js';
import { toSegmentState, type SegmentRow, type SegmentState } from './event-store.state.js';
import { TermDictionary } from './term-dictionary.sqlite.js';

interface ProcessState {
  row: number;
  name: string;
  md5: string;
  host: ProcessHost;
  segment: SegmentState | undefined;
}

/** A process row created in this transaction, written at its end with everything learnt meanwhile. */
type NewProcessRow = unknown[];

export class SqliteEventStore implements EventStore {
  private readonly statements: EventStatements;
  /**
   * Recently active processes. A Map kept in recency order by delete-and-set could not be used:
   * V8 leaves deleted entries as holes until it rehashes, and finding the oldest entry walks over
   * them, so at the cache's size each eviction scanned hundreds of thousands of holes (up to
   * 90 ms a commit, growing until the next rehash).
   */
  private readonly processes: LRUCache<string, ProcessState>;
  private readonly lastSequence = new Map<number, number>();
  private readonly terms: TermDictionary;
  private lastProcessRow: number | undefined;
  private lastSegmentRow: number | undefined;
  /** Rows to write when the current transaction ends. */
  private newProcesses = new Map<number, NewProcessRow>();
  private touchedSegments = new Set<SegmentState>();
  /** (term id, segment row) pairs, flat, inserted at the end of the transaction. */
  private postings: number[] = [];
  /** (term id, process row) pairs of command-line words, which belong to the process (process_postings). */
  private processPostings: number[] = [];
  private readonly posted = new PostedTerms();
  private readonly newSegments: NewSegmentCounts;
  /** The hot partition's first segment row. */
  private hotFirstRow: number;
  /** The hot partition's chunk file. */
  private readonly chunks: ChunkAppender;
  /** What this transaction adds to the hot partition's size. */
  private writtenBytes = 0;
  private writtenSegments = 0;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly rules: SegmentRules,
    private readonly now: () => number = Date.now,
  ) {
    const bounds = rules.cacheBounds ?? DEFAULT_CACHE_BOUNDS;
    this.processes = new LRUCache({ max: bounds.processes });
    this.statements = prepareEventStatements(db.connection);
    this.terms = new TermDictionary(db.connection, bounds.terms);
    this.newSegments = new NewSegmentCounts(db.connection);
    const hot = this.statements.hotPartition.get() as { id: number; first_row: number };
    this.hotFirstRow = hot.first_row;
    this.chunks = new ChunkAppender(db.connection.name, hot.id);
  }

  async commit(batches: readonly IngestBatch[]): Promise<IngestOutcome[]> {
    try {
      return await this.db.transactionSync(() => {
        const outcomes = batches.map((batch) => this.writeBatch(batch));
        this.writeDeferredRows();
        return outcomes;
      });
    } catch (error) {
      // The cached state may describe rows the rollback removed.
      this.processes.clear();
      this.lastSequence.clear();
      this.terms.reset();
      this.lastProcessRow = this.lastSegmentRow = undefined;
      this.newProcesses = new Map();
      this.touchedSegments = new Set();
      this.postings = [];
      this.processPostings = [];
      this.posted.clear();
      this.newSegments.clear();
      this.chunks.discard();
      this.writtenBytes = this.writtenSegments = 0;
      throw error;
    }
  }

  /** The row the next new segment gets. Call inside a transaction of this connection. */
  nextSegmentRow(): number {
    this.lastSegmentRow ??= this.statements.lastSegmentRow.get() as number;
    return this.lastSegmentRow + 1;
  }

  /**
   * A new hot partition (`partitionId`) starts at `firstRow` (at least nextSegmentRow()): every
   * open segment is closed, so that the next event of its process opens one in the new partition,
   * and its chunks go to the new partition's file.
   */
  startPartition(partitionId: number, firstRow: number): void {
    this.lastSegmentRow = firstRow - 1;
    this.hotFirstRow = firstRow;
    this.chunks.switchTo(partitionId);
  }

  /** Forgets the cached processes and row counters, after rows were deleted beneath them. */
  forgetRows(): void {
    this.processes.clear();
    this.posted.clear();
    this.lastProcessRow = this.lastSegmentRow = undefined;
  }

  /** Entries in the bounded caches (rules.cacheBounds), for their tests and diagnostics. */
  cacheSizes(): { processes: number; terms: number } {
    return { processes: this.processes.size, terms: this.terms.size };
  }

  async countRejection(sensorId: number, counters: ReadonlyMap<string, number>): Promise<void> {
    await this.db.transactionSync(() => this.addCounters(sensorId, counters));
  }

  async close(): Promise<void> {
    this.chunks.close();
    await this.db.close();
  }

  private writeBatch(batch: IngestBatch): IngestOutcome {
    const { sensor, sequence } = batch;
    const counters = new Map(batch.counters);
    if (countSequence(sequence, this.sequenceOf(sensor.id), counters)) {
      this.addCounters(sensor.id, counters);
      return { duplicate: true, accepted: 0, filtered: 0 };
    }
    const serverMs = this.now();
    let accepted = 0;
    for (const prepared of batch.processes) {
      const process = this.processState(sensor, prepared);
      if (prepared.start && process.name === '') this.completeProcess(process, prepared.start, sensor.id);
      if (prepared.endTs !== undefined) this.endProcess(process, prepared.endTs);
      accepted += prepared.eventCount;
      this.appendEvents(process, prepared, serverMs);
      if (prepared.endTs !== undefined && process.segment) this.posted.forget(process.segment.row);
    }
    this.statements.setSequence.run(sensor.id, sequence);
    this.lastSequence.set(sensor.id, sequence);
    countStored(accepted, batch.filtered, counters);
    this.addCounters(sensor.id, counters);
    return { duplicate: false, accepted, filtered: batch.filtered };
  }

  private sequenceOf(sensorId: number): number {
    let last = this.lastSequence.get(sensorId);
    if (last === undefined) {
      last = (this.statements.getSequence.get(sensorId) as number | undefined) ?? 0;
      this.lastSequence.set(sensorId, last);
    }
    return last;
  }

  /** The process's state: cached, or read back, or a new row from its start event (or a placeholder). */
  private processState(sensor: SensorIdentity, prepared: PreparedProcess): ProcessState {
    const key = `${sensor.id}:${prepared.pid}:${prepared.processStart}`;
    const cached = this.processes.get(key);
    if (cached) return cached;
    const state = this.loadProcess(sensor.id, prepared) ?? this.newProcess(sensor, prepared);
    this.processes.set(key, state);
    return state;
  }

  private loadProcess(sensorId: number, prepared: PreparedProcess): ProcessState | undefined {
    const row = this.statements.findProcess.get(sensorId, prepared.pid, prepared.processStart) as
      | { id: number; process_name: string; md5: string; group_id: number; hostname: string; host_type: string; os_type: string }
      | undefined;
    if (!row) return undefined;
    const segment = this.statements.latestSegment.get(row.id) as SegmentRow | undefined;
    return {
      row: row.id, name: row.process_name, md5: row.md5, host: [sensorId, row.group_id, row.hostname, row.host_type, row.os_type],
      segment: segment && toSegmentState(segment),
    };
  }

  private newProcess(sensor: SensorIdentity, prepared: PreparedProcess): ProcessState {
    this.lastProcessRow ??= this.statements.lastProcessRow.get() as number;
    const row = ++this.lastProcessRow;
    this.newProcesses.set(row, [
      row, sensor.id, prepared.pid, prepared.processStart, sensor.groupId, sensor.hostname, sensor.hostType, sensor.osType,
      '', '', '', '', '', '', '', -1, null, '', '', null,
    ]);
    const host: ProcessHost = [sensor.id, sensor.groupId, sensor.hostname, sensor.hostType, sensor.osType];
    const state: ProcessState = { row, name: '', md5: '', host, segment: undefined };
    if (prepared.start) this.completeProcess(state, prepared.start, sensor.id);
    return state;
  }

  /** Fills in a process's row from its start event (it may have been seen first through other events). */
  private completeProcess(process: ProcessState, start: NonNullable<PreparedProcess['start']>, sensorId: number): void {
    const parent = start.parent_pid === undefined
      ? undefined
      : this.processes.peek(`${sensorId}:${start.parent_pid}:${start.parent_start}`);
    process.name = baseName(start.path);
    process.md5 = start.md5 ?? '';
    const values = [
      start.path, process.name, start.cmdline ?? '', start.username ?? '', start.uid ?? '', process.md5, start.sha256 ?? '',
      start.parent_pid ?? -1, start.parent_start ?? null,
      start.parent_path ? baseName(start.parent_path) : parent?.name ?? '',
      start.parent_md5 ?? parent?.md5 ?? '',
    ];
    const pending = this.newProcesses.get(process.row);
    if (pending) pending.splice(8, values.length, ...values);
    else this.statements.completeProcess.run(...values, process.row);
  }

  private endProcess(process: ProcessState, endTs: number): void {
    const pending = this.newProcesses.get(process.row);
    if (pending) pending[19] = endTs;
    else this.statements.endProcess.run(endTs, process.row);
  }

  private appendEvents(process: ProcessState, prepared: PreparedProcess, serverMs: number): void {
    if (prepared.eventCount === 0) return;
    const segment = this.openSegment(process, prepared.firstTs, serverMs);
    if (segment.eventCount + prepared.eventCount <= this.rules.maxEventsPerSegment) {
      this.appendRun(segment, prepared.chunk, prepared.eventCount, prepared.summary, serverMs);
      return;
    }
    // The rare path: the events cross into the next segment, so the chunk is cut in parts.
    const rows = chunkRows(prepared.chunk);
    let offset = 0;
    while (offset < rows.length) {
      const current = this.openSegment(process, rows[offset]![1] as number, serverMs);
      const run = rows.slice(offset, offset + this.rules.maxEventsPerSegment - current.eventCount);
      offset += run.length;
      const summary = summarize(run.map((row) => decodeEvent(row, prepared.pid, prepared.processStart)));
      this.appendRun(current, JSON.stringify(run), run.length, summary, serverMs);
    }
  }

  private appendRun(segment: SegmentState, chunk: string, eventCount: number, summary: EventsSummary, serverMs: number): void {
    const [offset, length] = this.chunks.stage(chunk);
    this.statements.insertChunk.run(segment.row, segment.nextChunk++, eventCount, this.chunks.partition, offset, length, serverMs);
    this.writtenBytes += chunk.length;
    const { terms } = summary;
    const posted = this.posted.of(segment.row);
    for (let i = 0; i < terms.length; i += 2) {
      const id = this.terms.id(terms[i]!, terms[i + 1]!);
      if (terms[i] === 'cmdline') {
        this.processPostings.push(id, segment.processRow);
      } else if (!posted.has(id)) {
        posted.add(id);
        this.postings.push(id, segment.row);
      }
    }
    segment.eventCount += eventCount;
    for (let i = 0; i < COUNTED_TYPES.length; i++) segment.counts[i]! += summary.counts[i]!;
    if (summary.lastTs > segment.lastUpdateMs) segment.lastUpdateMs = summary.lastTs;
    segment.lastServerUpdateMs = serverMs;
    this.touchedSegments.add(segment);
  }

  private isOpen(segment: SegmentState, serverMs: number): boolean {
    return segment.eventCount < this.rules.maxEventsPerSegment && serverMs - segment.segmentId < this.rules.windowMs
      && segment.row >= this.hotFirstRow;
  }

  /** The process's open segment, or a new one when it is full or its window has closed. */
  private openSegment(process: ProcessState, firstEventMs: number, serverMs: number): SegmentState {
    const current = process.segment;
    if (current && this.isOpen(current, serverMs)) return current;
    // Segment ids are server times in ms and unique per process, even for two opened in one ms.
    const segmentId = current ? Math.max(serverMs, current.segmentId + 1) : serverMs;
    this.lastSegmentRow ??= this.statements.lastSegmentRow.get() as number;
    process.segment = {
      row: ++this.lastSegmentRow, processRow: process.row, segmentId, eventCount: 0, nextChunk: 0, firstEventMs,
      lastUpdateMs: firstEventMs, lastServerUpdateMs: serverMs, counts: new Array<number>(COUNTED_TYPES.length).fill(0), unwritten: true,
    };
    this.newSegments.add(process.row, process.host);
    return process.segment;
  }

  /** Processes first, since segments refer to them. */
  private writeDeferredRows(): void {
    for (const values of this.newProcesses.values()) this.statements.insertProcess.run(...values);
    for (const s of this.touchedSegments) {
      if (s.unwritten) {
        this.statements.insertSegment.run(s.row, s.processRow, s.segmentId, s.firstEventMs, s.lastUpdateMs, s.lastServerUpdateMs, s.eventCount, ...s.counts);
        s.unwritten = false;
        this.writtenSegments++;
      } else {
        this.statements.updateSegment.run(s.lastUpdateMs, s.lastServerUpdateMs, s.eventCount, ...s.counts, s.row);
      }
    }
    this.newSegments.write();
    this.newProcesses = new Map();
    this.touchedSegments = new Set();
    this.writePostings();
    // Last, so that the chunks reach their file only once every row of the commit was written.
    this.chunks.write();
    if (this.writtenBytes > 0) this.statements.countInHot.run(this.writtenBytes, this.writtenSegments);
    this.writtenBytes = this.writtenSegments = 0;
  }

  private writePostings(): void {
    const { insertPosting, insertPostings, insertProcessPosting, insertProcessPostings, addTermSegments } = this.statements;
    for (const [term, segments] of insertCountedPairs(sortPostings(this.postings), insertPosting, insertPostings)) addTermSegments.run(term, segments);
    insertPairs(sortPostings(this.processPostings), insertProcessPosting, insertProcessPostings);
    this.postings = [];
    this.processPostings = [];
  }

  private addCounters(sensorId: number, counters: ReadonlyMap<string, number>): void {
    for (const [name, value] of counters) {
      if (value !== 0) this.statements.addCounter.run(sensorId, name, value);
    }
  }
}
