/**
 * The production event store, on PostgreSQL (schema version 2, docs/adr/0019-postgres-event-store.md).
 * Each commit is one READ COMMITTED transaction that first locks the row of every sensor it
 * writes for: a sensor's batches then commit one after another whichever Vigil server received
 * them, so the duplicate check on `sensors.last_sequence` holds across servers, and every other
 * row a commit changes belongs to a locked sensor, so concurrent commits do not collide.
 *
 * As in the embedded store, recently active processes (row, open segment) are kept in memory
 * and the commit is a pass in memory followed by bulk writes (event-store.rows.postgres.ts).
 * The memory of a sensor's processes is dropped when its last sequence in the database is not
 * the one this server committed: another server wrote for it meanwhile.
 */
import { deflateRawSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import type pg from 'pg';
import { translatePostgresError, type PostgresDatabase } from '../../db/dialects/postgres.js';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import { chunkRows, decodeEvent } from '../../ingest/event-codec.js';
import { DEFAULT_CACHE_BOUNDS, type EventStore, type IngestBatch, type IngestOutcome, type SegmentRules } from '../../ingest/event-store.js';
import { baseName } from '../../ingest/normalize.js';
import { COUNTED_TYPES, summarize, type EventsSummary, type PreparedProcess } from '../../ingest/prepare.js';
import { countSequence, countStored } from '../../ingest/batch-sequence.js';
import { PostedTerms } from './event-store.postings.js';
import { CommitRows, type ProcessHost, type ProcessStartValues } from './event-store.rows.postgres.js';
import { processKey, readProcesses, RowIds, type ProcessState } from './event-store.reads.postgres.js';
import type { SegmentState } from './event-store.state.js';

/**
 * Fast deflate with a 4 KB window: a chunk is a few KB, and the smaller window and hash table
 * are a third cheaper to set up on every call (any raw inflate reads the result).
 */
export const DEFLATE = { level: 1, windowBits: 12, memLevel: 5 };


export class PostgresEventStore implements EventStore {
  private readonly processes: LRUCache<string, ProcessState>;
  private readonly lastSequence = new Map<number, number>();
  /** Terms the dictionary is known to hold. */
  private readonly knownTerms: LRUCache<string, true>;
  private readonly posted = new PostedTerms<string>();
  private readonly ids = new RowIds();
  /** Commits and rejection counts, one at a time: they share the rows being gathered. */
  private queue: Promise<unknown> = Promise.resolve();
  /** The hot partition's lowest segment id: segments below it take no more events. */
  private hotFloor = 0;
  private rows = new CommitRows();

  constructor(
    private readonly db: PostgresDatabase,
    private readonly rules: SegmentRules,
    private readonly now: () => number = Date.now,
  ) {
    const bounds = rules.cacheBounds ?? DEFAULT_CACHE_BOUNDS;
    this.processes = new LRUCache({ max: bounds.processes });
    this.knownTerms = new LRUCache({ max: bounds.terms });
  }

  async commit(batches: readonly IngestBatch[]): Promise<IngestOutcome[]> {
    return this.inTransaction(async (client) => {
      await this.lockSensors(client, batches.map((b) => b.sensor.id));
      await this.loadProcesses(client, batches);
      await this.reserveIds(client, batches);
      const outcomes = batches.map((batch) => this.writeBatch(batch));
      await this.rows.send(client);
      return outcomes;
    });
  }

  async countRejection(sensorId: number, counters: ReadonlyMap<string, number>): Promise<void> {
    await this.inTransaction(async (client) => {
      for (const [name, value] of counters) if (value !== 0) this.rows.addCounter(sensorId, name, value);
      await this.rows.send(client);
    });
  }

  /** The database is the container's: it closes it. */
  async close(): Promise<void> {}

  private inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const result = this.queue.then(() => this.runTransaction(work));
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async runTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.db.pool.connect();
    } catch (error) {
      throw translatePostgresError(error);
    }
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      for (const key of this.rows.dictionary.keys()) this.knownTerms.set(key, true);
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((failed: Error) => (broken = failed));
      // The memory may describe rows the rollback removed.
      this.processes.clear();
      this.lastSequence.clear();
      this.posted.clear();
      throw translatePostgresError(error);
    } finally {
      this.rows = new CommitRows();
      client.release(broken);
    }
  }

  /** Locks the sensors' rows (in id order, so two commits cannot wait on each other) and reads their sequences. */
  private async lockSensors(client: pg.PoolClient, sensorIds: readonly number[]): Promise<void> {
    const ids = [...new Set(sensorIds)].sort((a, b) => a - b);
    const { rows } = await client.query<{ id: string; last_sequence: string }>(
      'SELECT id, last_sequence FROM sensors WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE',
      [ids],
    );
    const stored = new Map(rows.map((r) => [Number(r.id), Number(r.last_sequence)]));
    for (const id of ids) {
      const last = stored.get(id) ?? 0;
      if (this.lastSequence.has(id) && this.lastSequence.get(id) !== last) this.forgetSensor(id);
      this.lastSequence.set(id, last);
    }
    const hot = await client.query<{ first_segment_id: string }>("SELECT first_segment_id FROM event_partitions WHERE state = 'hot'");
    this.hotFloor = Number(hot.rows[0]?.first_segment_id ?? 0);
  }

  private forgetSensor(sensorId: number): void {
    const prefix = `${sensorId}:`;
    for (const key of [...this.processes.keys()]) if (key.startsWith(prefix)) this.processes.delete(key);
  }

  /** Reads back the processes of these batches that are not in memory, with their open segments. */
  private async loadProcesses(client: pg.PoolClient, batches: readonly IngestBatch[]): Promise<void> {
    const wanted = new Map<string, [number, number, number]>();
    for (const { sensor, processes } of batches) {
      for (const p of processes) {
        const key = processKey(sensor.id, p.pid, p.processStart);
        if (!this.processes.has(key)) wanted.set(key, [sensor.id, p.pid, p.processStart]);
      }
    }
    if (wanted.size === 0) return;
    for (const found of await readProcesses(client, [...wanted.values()], this.hotFloor)) {
      this.processes.set(processKey(found.sensorId, found.pid, found.startMs), found);
    }
  }

  /** Takes enough row ids for the most rows these batches can create. */
  private async reserveIds(client: pg.PoolClient, batches: readonly IngestBatch[]): Promise<void> {
    let most = 0;
    for (const { processes } of batches) {
      for (const p of processes) most += 2 + Math.ceil(p.eventCount / this.rules.maxEventsPerSegment);
    }
    await this.ids.reserve(client, most);
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
      if (!this.knownTerms.has(term)) this.rows.dictionary.set(term, [field, value]);
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
