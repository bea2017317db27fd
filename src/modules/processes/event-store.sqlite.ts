/**
 * The embedded event store. One synchronous SQLite transaction per group of batches, with the
 * state of recently active processes (their row, open segment, filter verdict) kept in memory so
 * that the common path is appends: a chunk row per (segment, batch), a term row per distinct value
 * per segment, one update per touched segment.
 */
import type Database from 'better-sqlite3';
import type { SqliteDatabase } from '../../db/dialects/sqlite.js';
import type { EventOf, SensorEvent } from '../../ingest/event.schemas.js';
import type { GateVerdict, IngressGate } from '../../ingest/ingress-gate.js';
import { baseName } from '../../ingest/normalize.js';
import { counter } from '../../ingest/rejection.js';
import { eventTerms } from '../../ingest/terms.js';
import type { SensorIdentity } from '../sensors/sensors.service.js';
import { encodeChunk } from './event-codec.js';
import type { EventStore, IngestBatch, IngestOutcome, SegmentRules } from './event-store.js';

const COUNTED_TYPES = ['filemod', 'regmod', 'netconn', 'modload', 'childproc', 'crossproc', 'processblock'] as const;
type CountedType = (typeof COUNTED_TYPES)[number];

interface SegmentState {
  row: number;
  segmentId: number;
  eventCount: number;
  nextChunk: number;
  firstEventMs: number;
  lastUpdateMs: number;
  counts: Record<CountedType, number>;
}

interface ProcessState {
  row: number;
  name: string;
  md5: string;
  segment: SegmentState | undefined;
  verdict: GateVerdict | undefined;
}

/** How many processes' state stays in memory (least recently active are forgotten first). */
const PROCESS_CACHE_SIZE = 200_000;

export class SqliteEventStore implements EventStore {
  private readonly statements: ReturnType<typeof prepare>;
  private readonly processes = new Map<string, ProcessState>();
  private readonly lastSequence = new Map<number, number>();

  constructor(
    private readonly db: SqliteDatabase,
    private readonly rules: SegmentRules,
    private readonly gate: IngressGate,
    private readonly now: () => number = Date.now,
  ) {
    this.statements = prepare(db.connection);
  }

  async commit(batches: readonly IngestBatch[]): Promise<IngestOutcome[]> {
    try {
      return await this.db.transactionSync(() => batches.map((batch) => this.writeBatch(batch)));
    } catch (error) {
      // The cached state may describe rows the rollback removed.
      this.processes.clear();
      this.lastSequence.clear();
      throw error;
    }
  }

  async countRejection(sensorId: number, counters: ReadonlyMap<string, number>): Promise<void> {
    await this.db.transactionSync(() => this.addCounters(sensorId, counters));
  }

  private writeBatch(batch: IngestBatch): IngestOutcome {
    const { sensor, sequence } = batch;
    const counters = new Map(batch.counters);
    const last = this.sequenceOf(sensor.id);
    if (sequence <= last) {
      counters.set(counter.batchesDuplicate, 1);
      this.addCounters(sensor.id, counters);
      return { duplicate: true, accepted: 0, filtered: 0 };
    }
    if (sequence > last + 1) {
      counters.set(counter.sequenceGaps, 1);
      counters.set(counter.sequencesMissing, sequence - last - 1);
    }
    const serverMs = this.now();
    let accepted = 0;
    let filtered = 0;
    for (const [key, events] of groupByProcess(sensor.id, batch.events)) {
      const process = this.processState(sensor, key, events);
      this.applyLifecycle(sensor, process, events);
      const kept = process.verdict ? events.filter((event) => !this.gate.dropsEvent(process.verdict!, event)) : events;
      filtered += events.length - kept.length;
      accepted += kept.length;
      this.appendEvents(process, kept, serverMs);
    }
    this.statements.setSequence.run(sequence, sensor.id);
    this.lastSequence.set(sensor.id, sequence);
    counters.set(counter.batchesAccepted, 1);
    counters.set(counter.eventsAccepted, accepted);
    if (filtered > 0) counters.set(counter.eventsFiltered, filtered);
    this.addCounters(sensor.id, counters);
    return { duplicate: false, accepted, filtered };
  }

  private sequenceOf(sensorId: number): number {
    let last = this.lastSequence.get(sensorId);
    if (last === undefined) {
      last = (this.statements.getSequence.get(sensorId) as { last_sequence: number } | undefined)?.last_sequence ?? 0;
      this.lastSequence.set(sensorId, last);
    }
    return last;
  }

  /** The process's state: cached, or read back, or a new row from its start event (or a placeholder). */
  private processState(sensor: SensorIdentity, key: ProcessKeyText, events: readonly SensorEvent[]): ProcessState {
    const cached = this.processes.get(key.text);
    if (cached) {
      this.processes.delete(key.text);
      this.processes.set(key.text, cached);
      return cached;
    }
    const state = this.loadProcess(key) ?? this.insertProcess(sensor, key, events.find((e) => e.type === 'process_start'));
    this.processes.set(key.text, state);
    if (this.processes.size > PROCESS_CACHE_SIZE) this.processes.delete(this.processes.keys().next().value!);
    return state;
  }

  private loadProcess(key: ProcessKeyText): ProcessState | undefined {
    const row = this.statements.findProcess.get(key.sensorId, key.pid, key.startMs) as
      | { id: number; process_name: string; md5: string }
      | undefined;
    if (!row) return undefined;
    const segment = this.statements.latestSegment.get(row.id) as SegmentRow | undefined;
    return { row: row.id, name: row.process_name, md5: row.md5, segment: segment && toSegmentState(segment), verdict: undefined };
  }

  private insertProcess(sensor: SensorIdentity, key: ProcessKeyText, start: SensorEvent | undefined): ProcessState {
    const s = start?.type === 'process_start' ? start : undefined;
    const parent = s?.parent_pid === undefined || s.parent_start === undefined
      ? undefined
      : this.processes.get(`${sensor.id}:${s.parent_pid}:${s.parent_start}`);
    const name = s ? baseName(s.path) : '';
    const md5 = s?.md5 ?? '';
    const row = this.statements.insertProcess.get(
      sensor.id, key.pid, key.startMs, sensor.groupId, sensor.hostname, sensor.hostType, sensor.osType,
      s?.path ?? '', name, s?.cmdline ?? '', s?.username ?? '', s?.uid ?? '', md5, s?.sha256 ?? '',
      s?.parent_pid ?? -1, s?.parent_start ?? null,
      s?.parent_path ? baseName(s.parent_path) : parent?.name ?? '',
      s?.parent_md5 ?? parent?.md5 ?? '',
    ) as { id: number };
    const verdict = s ? this.judge(sensor, s, parent?.verdict) : undefined;
    return { row: row.id, name, md5, segment: undefined, verdict };
  }

  private judge(sensor: SensorIdentity, start: EventOf<'process_start'>, parent: GateVerdict | undefined): GateVerdict | undefined {
    return this.gate.judgeProcess(
      { sensorId: sensor.id, groupId: sensor.groupId, osType: sensor.osType },
      { path: start.path, cmdline: start.cmdline ?? '', md5: start.md5 ?? '' },
      parent,
    );
  }

  /**
   * A start event for a process first seen through other events fills in its row (and brings it
   * before the ingress filters); an end event closes it.
   */
  private applyLifecycle(sensor: SensorIdentity, process: ProcessState, events: readonly SensorEvent[]): void {
    for (const event of events) {
      if (event.type === 'process_start' && process.name === '') {
        process.name = baseName(event.path);
        process.md5 = event.md5 ?? '';
        process.verdict = this.judge(sensor, event, undefined);
        this.statements.completeProcess.run(
          event.path, process.name, event.cmdline ?? '', event.username ?? '', event.uid ?? '', process.md5,
          event.sha256 ?? '', event.parent_pid ?? -1, event.parent_start ?? null,
          event.parent_path ? baseName(event.parent_path) : '', event.parent_md5 ?? '', process.row,
        );
      } else if (event.type === 'process_end') {
        this.statements.endProcess.run(event.ts, process.row);
      }
    }
  }

  private appendEvents(process: ProcessState, events: readonly SensorEvent[], serverMs: number): void {
    let offset = 0;
    while (offset < events.length) {
      const segment = this.openSegment(process, events[offset]!.ts, serverMs);
      const room = this.rules.maxEventsPerSegment - segment.eventCount;
      const run = events.slice(offset, offset + room);
      offset += run.length;
      const terms = new Set<string>();
      for (const event of run) {
        eventTerms(event, terms);
        if (event.type in segment.counts) segment.counts[event.type as CountedType]++;
        if (event.ts > segment.lastUpdateMs) segment.lastUpdateMs = event.ts;
      }
      segment.eventCount += run.length;
      this.statements.insertChunk.run(segment.row, segment.nextChunk++, run.length, encodeChunk(run));
      for (const term of terms) this.statements.insertTerm.run(term, segment.row);
      const c = segment.counts;
      this.statements.updateSegment.run(
        segment.lastUpdateMs, serverMs, segment.eventCount, c.filemod, c.regmod, c.netconn, c.modload, c.childproc,
        c.crossproc, c.processblock, segment.row,
      );
    }
  }

  /** The process's open segment, or a new one when it is full or its window has closed. */
  private openSegment(process: ProcessState, firstEventMs: number, serverMs: number): SegmentState {
    const current = process.segment;
    if (current && current.eventCount < this.rules.maxEventsPerSegment && serverMs - current.segmentId < this.rules.windowMs) {
      return current;
    }
    // Segment ids are server times in ms and unique per process, even for two opened in one ms.
    const segmentId = current ? Math.max(serverMs, current.segmentId + 1) : serverMs;
    const row = this.statements.insertSegment.get(process.row, segmentId, firstEventMs, firstEventMs, serverMs) as { id: number };
    const counts = Object.fromEntries(COUNTED_TYPES.map((type) => [type, 0])) as Record<CountedType, number>;
    process.segment = { row: row.id, segmentId, eventCount: 0, nextChunk: 0, firstEventMs, lastUpdateMs: firstEventMs, counts };
    return process.segment;
  }

  private addCounters(sensorId: number, counters: ReadonlyMap<string, number>): void {
    for (const [name, value] of counters) {
      if (value !== 0) this.statements.addCounter.run(sensorId, name, value);
    }
  }
}

interface ProcessKeyText {
  text: string;
  sensorId: number;
  pid: number;
  startMs: number;
}

/** The batch's events per acting process, each list in the order sent. */
function groupByProcess(sensorId: number, events: readonly SensorEvent[]): Map<ProcessKeyText, SensorEvent[]> {
  const byText = new Map<string, { key: ProcessKeyText; events: SensorEvent[] }>();
  for (const event of events) {
    const text = `${sensorId}:${event.pid}:${event.process_start}`;
    let entry = byText.get(text);
    if (!entry) {
      entry = { key: { text, sensorId, pid: event.pid, startMs: event.process_start }, events: [] };
      byText.set(text, entry);
    }
    entry.events.push(event);
  }
  return new Map([...byText.values()].map(({ key, events: list }) => [key, list]));
}

interface SegmentRow {
  id: number;
  segment_id: number;
  event_count: number;
  next_chunk: number;
  first_event_ms: number;
  last_update_ms: number;
  filemod_count: number;
  regmod_count: number;
  netconn_count: number;
  modload_count: number;
  childproc_count: number;
  crossproc_count: number;
  processblock_count: number;
}

function toSegmentState(row: SegmentRow): SegmentState {
  return {
    row: row.id,
    segmentId: row.segment_id,
    eventCount: row.event_count,
    nextChunk: row.next_chunk,
    firstEventMs: row.first_event_ms,
    lastUpdateMs: row.last_update_ms,
    counts: Object.fromEntries(COUNTED_TYPES.map((type) => [type, row[`${type}_count`]])) as Record<CountedType, number>,
  };
}

function prepare(connection: Database.Database) {
  return {
    getSequence: connection.prepare('SELECT last_sequence FROM sensors WHERE id = ?'),
    setSequence: connection.prepare('UPDATE sensors SET last_sequence = ? WHERE id = ?'),
    findProcess: connection.prepare('SELECT id, process_name, md5 FROM processes WHERE sensor_id = ? AND pid = ? AND start_ms = ?'),
    latestSegment: connection.prepare(
      `SELECT s.*, (SELECT COALESCE(MAX(chunk), -1) + 1 FROM segment_events WHERE segment_row = s.id) AS next_chunk
       FROM segments s WHERE process_id = ? ORDER BY segment_id DESC LIMIT 1`,
    ),
    insertProcess: connection.prepare(
      `INSERT INTO processes (sensor_id, pid, start_ms, group_id, hostname, host_type, os_type, path, process_name, cmdline,
         username, uid, md5, sha256, parent_pid, parent_start_ms, parent_name, parent_md5)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    ),
    completeProcess: connection.prepare(
      `UPDATE processes SET path = ?, process_name = ?, cmdline = ?, username = ?, uid = ?, md5 = ?, sha256 = ?,
         parent_pid = ?, parent_start_ms = ?, parent_name = ?, parent_md5 = ? WHERE id = ?`,
    ),
    endProcess: connection.prepare('UPDATE processes SET end_ms = ? WHERE id = ?'),
    insertSegment: connection.prepare(
      `INSERT INTO segments (process_id, segment_id, first_event_ms, last_update_ms, last_server_update_ms)
       VALUES (?, ?, ?, ?, ?) RETURNING id`,
    ),
    updateSegment: connection.prepare(
      `UPDATE segments SET last_update_ms = ?, last_server_update_ms = ?, event_count = ?, filemod_count = ?,
         regmod_count = ?, netconn_count = ?, modload_count = ?, childproc_count = ?, crossproc_count = ?,
         processblock_count = ? WHERE id = ?`,
    ),
    insertChunk: connection.prepare('INSERT INTO segment_events (segment_row, chunk, event_count, data) VALUES (?, ?, ?, ?)'),
    insertTerm: connection.prepare('INSERT OR IGNORE INTO event_terms (term, segment_row) VALUES (?, ?)'),
    addCounter: connection.prepare(
      `INSERT INTO ingest_counters (sensor_id, name, value) VALUES (?, ?, ?)
       ON CONFLICT (sensor_id, name) DO UPDATE SET value = ingest_counters.value + excluded.value`,
    ),
  };
}
