/**
 * The production event store, on PostgreSQL (schema version 2, docs/adr/0019-postgres-event-store.md).
 * Each commit is one READ COMMITTED transaction that first locks the `sensor_sequences` row of
 * every sensor it writes for: a sensor's batches then commit one after another whichever Vigil
 * server received them, so the duplicate check on the last sequence holds across servers, and
 * every other row a commit changes belongs to a locked sensor, so concurrent commits do not
 * collide. The sensor rows themselves are the check-ins' and are neither locked nor written here.
 *
 * As in the embedded store, recently active processes (row, open segment) are kept in memory
 * and the commit is a pass in memory followed by bulk writes (event-store.rows.postgres.ts).
 * The memory of a sensor's processes is dropped when its last sequence in the database is not
 * the one this server committed: another server wrote for it meanwhile. Commits overlap: the next
 * one's reads and pass run while this one's rows are sent (event-store.commits.postgres.ts).
 */
import { deflateRawSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import type pg from 'pg';
import type { PostgresDatabase } from '../../db/dialects/postgres.js';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import { chunkRows, decodeEvent } from '../../ingest/event-codec.js';
import { DEFAULT_CACHE_BOUNDS, type EventStore, type IngestBatch, type IngestOutcome, type SegmentRules } from '../../ingest/event-store.js';
import { baseName } from '../../ingest/normalize.js';
import { COUNTED_TYPES, summarize, type EventsSummary, type PreparedProcess } from '../../ingest/prepare.js';
import { countSequence, countStored } from '../../ingest/batch-sequence.js';
import { PostedTerms } from './event-store.postings.js';
import { CommitRows, type ProcessHost, type ProcessStartValues } from './event-store.rows.postgres.js';
import { lockSensors, processKey, readProcesses, RowIds, type LockedSensors, type ProcessState } from './event-store.reads.postgres.js';
import { OrderedCommits, type Pass } from './event-store.commits.postgres.js';
import type { SegmentState } from './event-store.state.js';
import { TermGenerations } from './term-generations.js';

/**
 * Fast deflate with a 4 KB window: a chunk is a few KB, and the smaller window and hash table
 * are a third cheaper to set up on every call (any raw inflate reads the result). Output comes
 * in 2 KB pieces, which Node takes from its shared buffer pool, where the default 16 KB is a
 * fresh allocation per call that the deflated bytes (~1 KB) then pin until the next GC: about
 * about 0.4 µs of CPU per event in bench/pg-ingest, for the same bytes.
 */
export const DEFLATE = { level: 1, windowBits: 12, memLevel: 5, chunkSize: 2048 };


interface CommitReads extends LockedSensors {
  stale: Set<number>;
  found: ProcessState[];
}

export class PostgresEventStore implements EventStore {
  private readonly processes: LRUCache<string, ProcessState>;
  private readonly lastSequence = new Map<number, number>();
  /** Terms the dictionary is known to hold. */
  private readonly knownTerms: TermGenerations<true>;
  private readonly posted = new PostedTerms<string>();
  private readonly ids = new RowIds();
  /** The hot partition's lowest segment id: segments below it take no more events. */
  private hotFloor = 0;
  /** The rows the running pass gathers. */
  private rows = new CommitRows();
  private readonly commits: OrderedCommits;

  constructor(
    private readonly db: PostgresDatabase,
    private readonly rules: SegmentRules,
    private readonly now: () => number = Date.now,
  ) {
    const bounds = rules.cacheBounds ?? DEFAULT_CACHE_BOUNDS;
    this.processes = new LRUCache({ max: bounds.processes });
    this.knownTerms = new TermGenerations(bounds.terms);
    this.commits = new OrderedCommits(db.pool, () => this.forgetAll());
  }

  async commit(batches: readonly IngestBatch[]): Promise<IngestOutcome[]> {
    return this.commits.run(
      (client, begin) => this.read(client, batches, begin),
      (read) => this.pass(() => {
        this.apply(read);
        return batches.map((batch) => this.writeBatch(batch));
      }),
    );
  }

  async countRejection(sensorId: number, counters: ReadonlyMap<string, number>): Promise<void> {
    await this.commits.run(
      async (client, begin) => void (begin && (await client.query('BEGIN'))),
      () => this.pass(() => this.addCounters(sensorId, counters)),
    );
  }

  readyForNext(): Promise<void> {
    return this.commits.readyForNext();
  }

  /** The database is the container's: it closes it. */
  async close(): Promise<void> {}

  /** Runs a commit's work in memory on rows of its own, which its connection then sends. */
  private pass<T>(work: () => T): Pass<T> {
    const rows = new CommitRows();
    this.rows = rows;
    return { result: work(), send: (client) => rows.send(client) };
  }

  /** Everything the commit's pass needs from the database, changing nothing in memory. */
  private async read(client: pg.PoolClient, batches: readonly IngestBatch[], begin: boolean): Promise<CommitReads> {
    let mostIds = 0;
    for (const { processes } of batches) {
      for (const p of processes) mostIds += 2 + Math.ceil(p.eventCount / this.rules.maxEventsPerSegment);
    }
    const locked = await lockSensors(client, batches.map((b) => b.sensor.id), this.ids.blocksMissing(mostIds), begin);
    // A sensor another server wrote for since this one's last commit: what is known of it is stale.
    const stale = new Set([...locked.sequences].filter(([id, last]) => this.lastSequence.has(id) && this.lastSequence.get(id) !== last).map(([id]) => id));
    const wanted = new Map<string, [number, number, number]>();
    for (const { sensor, processes } of batches) {
      for (const p of processes) {
        const key = processKey(sensor.id, p.pid, p.processStart);
        if (stale.has(sensor.id) || !this.processes.has(key)) wanted.set(key, [sensor.id, p.pid, p.processStart]);
      }
    }
    const found = wanted.size === 0 ? [] : await readProcesses(client, [...wanted.values()], locked.hotFloor);
    return { ...locked, stale, found };
  }

  private apply({ sequences, hotFloor, idBlocks, stale, found }: CommitReads): void {
    for (const id of stale) this.forgetSensor(id);
    for (const [id, last] of sequences) this.lastSequence.set(id, last);
    this.hotFloor = hotFloor;
    this.ids.add(idBlocks);
    for (const process of found) this.processes.set(processKey(process.sensorId, process.pid, process.startMs), process);
  }

  /** After a failed commit: the memory may describe rows its rollback removed. */
  private forgetAll(): void {
    this.processes.clear();
    this.lastSequence.clear();
    this.posted.clear();
    this.knownTerms.clear();
  }

  private forgetSensor(sensorId: number): void {
    const prefix = `${sensorId}:`;
    for (const key of [...this.processes.keys()]) if (key.startsWith(prefix)) this.processes.delete(key);
  }

  private writeBatch(batch: IngestBatch): IngestOutcome {
    const { sensor, sequence } = batch;
    const counters = new Map(batch.counters);
    if (countSequence(sequence, this.lastSequence.get(sensor.id) ?? 0, counters)) {
      this.addCounters(sensor.id, counters);
      return { duplicate: true, accepted: 0, filtered: 0 };
    }
    const serverMs = this.now();
    let accepted = 0;
    for (const prepared of batch.processes) {
      const process = this.processState(sensor, prepared);
      if (prepared.start && process.name === '') this.completeProcess(process, prepared.start);
      if (prepared.endTs !== undefined) this.endProcess(process, prepared.endTs);
      accepted += prepared.eventCount;
      this.appendEvents(process, prepared, serverMs);
      if (prepared.endTs !== undefined && process.segment) this.posted.forget(process.segment.row);
    }
    this.rows.setSequence(sensor.id, sequence);
    this.lastSequence.set(sensor.id, sequence);
    countStored(accepted, batch.filtered, counters);
    this.addCounters(sensor.id, counters);
    return { duplicate: false, accepted, filtered: batch.filtered };
  }

  private processState(sensor: SensorIdentity, prepared: PreparedProcess): ProcessState {
    const key = processKey(sensor.id, prepared.pid, prepared.processStart);
    const cached = this.processes.get(key);
    if (cached) return cached;
    const row = this.ids.next();
    const host: ProcessHost = [sensor.id, sensor.groupId, sensor.hostname, sensor.hostType, sensor.osType];
    this.rows.newProcesses.set(row, {
      sensorId: sensor.id, id: row, pid: prepared.pid, startMs: prepared.processStart, host, path: '', name: '', cmdline: '',
      username: '', uid: '', md5: '', sha256: '', parentPid: -1, parentStartMs: null, parentName: '', parentMd5: '', endMs: null, words: new Set(),
    });
    const state: ProcessState = { sensorId: sensor.id, pid: prepared.pid, startMs: prepared.processStart, row, name: '', md5: '', host, segment: undefined };
    this.processes.set(key, state);
    return state;
  }

  /** Fills in a process's row from its start event (it may have been seen first through other events). */
  private completeProcess(process: ProcessState, start: NonNullable<PreparedProcess['start']>): void {
    const parent = start.parent_pid === undefined ? undefined : this.processes.peek(processKey(process.sensorId, start.parent_pid, start.parent_start ?? 0));
    process.name = baseName(start.path);
    process.md5 = start.md5 ?? '';
    const values: ProcessStartValues = [
      start.path, process.name, start.cmdline ?? '', start.username ?? '', start.uid ?? '', process.md5, start.sha256 ?? '',
      start.parent_pid ?? -1, start.parent_start ?? null, start.parent_path ? baseName(start.parent_path) : parent?.name ?? '',
      start.parent_md5 ?? parent?.md5 ?? '',
    ];
    const pending = this.rows.newProcesses.get(process.row);
    if (!pending) {
      this.rows.completeProcess(process.sensorId, process.row, values);
      return;
    }
    [pending.path, pending.name, pending.cmdline, pending.username, pending.uid, pending.md5, pending.sha256,
      pending.parentPid, pending.parentStartMs, pending.parentName, pending.parentMd5] = values;
  }

  private endProcess(process: ProcessState, endTs: number): void {
    const pending = this.rows.newProcesses.get(process.row);
    if (pending) pending.endMs = endTs;
    else this.rows.endProcess(process.sensorId, process.row, endTs);
  }

  private appendEvents(process: ProcessState, prepared: PreparedProcess, serverMs: number): void {
    if (prepared.eventCount === 0) return;
    const segment = this.openSegment(process, prepared.firstTs, serverMs);
    if (segment.eventCount + prepared.eventCount <= this.rules.maxEventsPerSegment) {
      this.appendRun(process, segment, prepared.chunk, prepared.eventCount, prepared.summary, serverMs);
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
      this.appendRun(process, current, JSON.stringify(run), run.length, summary, serverMs);
    }
  }

  private appendRun(process: ProcessState, segment: SegmentState & { sensorId: number }, chunk: string, eventCount: number, summary: EventsSummary, serverMs: number): void {
    const chunkNumber = segment.nextChunk++;
    this.rows.chunks.add([process.sensorId, segment.segmentId, segment.row, chunkNumber, eventCount, deflateRawSync(chunk, DEFLATE), serverMs]);
    const { terms } = summary;
    const posted = this.posted.of(segment.row);
    const added: string[] = [];
    const words: string[] = [];
    for (let i = 0; i < terms.length; i += 2) {
      const field = terms[i]!;
      const value = terms[i + 1]!;
      const term = `${field}:${value}`;
      if (!this.knownTerms.get(field, value)) {
        this.rows.dictionary.set(term, [field, value]);
        this.knownTerms.set(field, value, true);
      }
      if (field === 'cmdline') words.push(value);
      else if (!posted.has(term)) {
        posted.add(term);
        added.push(term);
      }
    }
    if (added.length > 0) this.rows.termSets.add([process.sensorId, segment.segmentId, segment.row, chunkNumber, added]);
    if (words.length > 0) this.addWords(process, words);
    segment.eventCount += eventCount;
    for (let i = 0; i < COUNTED_TYPES.length; i++) segment.counts[i]! += summary.counts[i]!;
    if (summary.lastTs > segment.lastUpdateMs) segment.lastUpdateMs = summary.lastTs;
    segment.lastServerUpdateMs = serverMs;
    this.rows.touchedSegments.add(segment);
  }

  private addWords(process: ProcessState, words: readonly string[]): void {
    const pending = this.rows.newProcesses.get(process.row);
    if (pending) for (const word of words) pending.words.add(word);
    else this.rows.addWords(process.sensorId, process.row, words);
  }

  private isOpen(segment: SegmentState, serverMs: number): boolean {
    return segment.eventCount < this.rules.maxEventsPerSegment && serverMs - segment.segmentId < this.rules.windowMs
      && segment.segmentId >= this.hotFloor;
  }

  /** The process's open segment, or a new one when it is full, its window has closed or its partition is no longer hot. */
  private openSegment(process: ProcessState, firstEventMs: number, serverMs: number): SegmentState & { sensorId: number } {
    const current = process.segment;
    if (current && this.isOpen(current, serverMs)) return current;
    // Segment ids are server times in ms, unique per process, and inside the hot partition.
    const segmentId = Math.max(serverMs, current ? current.segmentId + 1 : 0, this.hotFloor);
    process.segment = {
      sensorId: process.sensorId, row: this.ids.next(), processRow: process.row, segmentId, eventCount: 0, nextChunk: 0, firstEventMs,
      lastUpdateMs: firstEventMs, lastServerUpdateMs: serverMs, counts: new Array<number>(COUNTED_TYPES.length).fill(0), unwritten: true,
    };
    this.rows.countSegment(process.sensorId, process.row, process.host);
    return process.segment;
  }

  private addCounters(sensorId: number, counters: ReadonlyMap<string, number>): void {
    for (const [name, value] of counters) if (value !== 0) this.rows.addCounter(sensorId, name, value);
  }
}
