/**
 * Investigations and the events tagged into them. Written once against SqlDatabase;
 * investigations.store.contract.ts is the contract every dialect must pass.
 *
 * Invariants: the Default Investigation (1) is seeded by the migration; deleting an investigation
 * deletes its tagged events; an investigation's updatedMs moves when it is changed and when an
 * event is tagged into it, changed or untagged.
 */
import type { SqlDatabase, SqlExecutor, SqlValue } from '../../db/database.js';

export const DEFAULT_INVESTIGATION_ID = 1;

export interface InvestigationRecord {
  id: number;
  name: string;
  notes: string;
  /** Username of the creator; '' for the system's own. */
  createdBy: string;
  startedMs: number;
  updatedMs: number;
}

export interface NewTaggedEvent {
  investigationId: number;
  /** The tagged process's id (no segment suffix); '' for a note that names no process. */
  processGuid: string;
  /** The tagged process's sensor (distributes the row by sensor, as its events are); 0 for a note. */
  sensorId: number;
  segmentId: number;
  pid: number | null;
  /** The process's sensor group, which decides who sees the tag; null for a note. */
  groupId: number | null;
  eventId: number | null;
  eventType: string;
  eventData: unknown;
  startMs: number | null;
  taggedBy: string;
  notes: string;
}

export interface TaggedEventRecord extends NewTaggedEvent {
  id: number;
  taggedMs: number;
}

export type TaggedEventChange = Partial<Pick<TaggedEventRecord, 'eventType' | 'eventData' | 'startMs' | 'notes'>>;

export interface InvestigationsStore {
  create(investigation: { name: string; notes: string; createdBy: string }, nowMs: number): Promise<InvestigationRecord>;
  get(id: number): Promise<InvestigationRecord | undefined>;
  /** Every investigation, by id. */
  list(): Promise<InvestigationRecord[]>;
  /** undefined when there is no such investigation. */
  update(id: number, change: { name?: string | undefined; notes?: string | undefined }, nowMs: number): Promise<InvestigationRecord | undefined>;
  /** false when there was no such investigation; its tagged events go with it. */
  delete(id: number): Promise<boolean>;
  /** undefined when the investigation does not exist. */
  tag(event: NewTaggedEvent, nowMs: number): Promise<TaggedEventRecord | undefined>;
  taggedEvent(id: number): Promise<TaggedEventRecord | undefined>;
  /** The events of an investigation, by id. */
  taggedEventsOf(investigationId: number): Promise<TaggedEventRecord[]>;
  /** The events tagged on these processes, by id. */
  taggedEventsOn(processGuids: readonly string[]): Promise<TaggedEventRecord[]>;
  /** The events tagged on processes with this pid, on any sensor, by id. */
  taggedEventsWithPid(pid: number): Promise<TaggedEventRecord[]>;
  /** undefined when there is no such tagged event. */
  updateTaggedEvent(id: number, change: TaggedEventChange, nowMs: number): Promise<TaggedEventRecord | undefined>;
  /** false when there was no such tagged event. */
  untag(id: number, nowMs: number): Promise<boolean>;
}

interface InvestigationRow {
  id: number;
  name: string;
  notes: string;
  created_by: string;
  started_ms: number;
  updated_ms: number;
}

interface TaggedEventRow {
  id: number;
  investigation_id: number;
  process_guid: string;
  sensor_id: number;
  segment_id: number;
  pid: number | null;
  group_id: number | null;
  event_id: number | null;
  event_type: string;
  event_data: string;
  start_ms: number | null;
  tagged_ms: number;
  tagged_by: string;
  notes: string;
}

export class SqlInvestigationsStore implements InvestigationsStore {
  constructor(private readonly db: SqlDatabase) {}

  async create(investigation: { name: string; notes: string; createdBy: string }, nowMs: number): Promise<InvestigationRecord> {
    const row = await this.db.get<InvestigationRow>(
      'INSERT INTO investigations (name, notes, created_by, started_ms, updated_ms) VALUES (?, ?, ?, ?, ?) RETURNING *',
      [investigation.name, investigation.notes, investigation.createdBy, nowMs, nowMs],
    );
    return investigationRecord(row!);
  }

  async get(id: number): Promise<InvestigationRecord | undefined> {
    const row = await this.db.get<InvestigationRow>('SELECT * FROM investigations WHERE id = ?', [id]);
    return row && investigationRecord(row);
  }

  async list(): Promise<InvestigationRecord[]> {
    return (await this.db.all<InvestigationRow>('SELECT * FROM investigations ORDER BY id')).map(investigationRecord);
  }

  async update(id: number, change: { name?: string | undefined; notes?: string | undefined }, nowMs: number): Promise<InvestigationRecord | undefined> {
    const row = await this.db.get<InvestigationRow>(
      'UPDATE investigations SET name = coalesce(?, name), notes = coalesce(?, notes), updated_ms = ? WHERE id = ? RETURNING *',
      [change.name ?? null, change.notes ?? null, nowMs, id],
    );
    return row && investigationRecord(row);
  }

  async delete(id: number): Promise<boolean> {
    return (await this.db.run('DELETE FROM investigations WHERE id = ?', [id])).changes > 0;
  }

  tag(event: NewTaggedEvent, nowMs: number): Promise<TaggedEventRecord | undefined> {
    return this.db.transaction(async (tx) => {
      if (!(await touch(tx, event.investigationId, nowMs))) return undefined;
      const row = await tx.get<TaggedEventRow>(
        `INSERT INTO tagged_events (investigation_id, process_guid, sensor_id, segment_id, pid, group_id, event_id, event_type, event_data,
           start_ms, tagged_ms, tagged_by, notes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
        [event.investigationId, event.processGuid, event.sensorId, event.segmentId, event.pid, event.groupId, event.eventId, event.eventType,
          JSON.stringify(event.eventData ?? {}), event.startMs, nowMs, event.taggedBy, event.notes],
      );
      return taggedEventRecord(row!);
    });
  }

  async taggedEvent(id: number): Promise<TaggedEventRecord | undefined> {
    const row = await this.db.get<TaggedEventRow>('SELECT * FROM tagged_events WHERE id = ?', [id]);
    return row && taggedEventRecord(row);
  }

  async taggedEventsOf(investigationId: number): Promise<TaggedEventRecord[]> {
    return (await this.db.all<TaggedEventRow>('SELECT * FROM tagged_events WHERE investigation_id = ? ORDER BY id', [investigationId]))
      .map(taggedEventRecord);
  }

  async taggedEventsOn(processGuids: readonly string[]): Promise<TaggedEventRecord[]> {
    const guids = processGuids.filter((guid) => guid !== '');
    if (guids.length === 0) return [];
    return (await this.db.all<TaggedEventRow>(
      // The repeated <> '' lets SQLite use the partial index on process_guid.
      `SELECT * FROM tagged_events WHERE process_guid IN (${guids.map(() => '?').join(', ')}) AND process_guid <> '' ORDER BY id`, guids,
    )).map(taggedEventRecord);
  }

  async taggedEventsWithPid(pid: number): Promise<TaggedEventRecord[]> {
    return (await this.db.all<TaggedEventRow>('SELECT * FROM tagged_events WHERE pid = ? ORDER BY id', [pid])).map(taggedEventRecord);
  }

  updateTaggedEvent(id: number, change: TaggedEventChange, nowMs: number): Promise<TaggedEventRecord | undefined> {
    return this.db.transaction(async (tx) => {
      const params: SqlValue[] = [
        change.eventType ?? null,
        change.eventData === undefined ? null : JSON.stringify(change.eventData),
        change.startMs ?? null,
        change.notes ?? null,
        id,
      ];
      const row = await tx.get<TaggedEventRow>(
        `UPDATE tagged_events SET event_type = coalesce(?, event_type), event_data = coalesce(?, event_data),
           start_ms = coalesce(?, start_ms), notes = coalesce(?, notes) WHERE id = ? RETURNING *`,
        params,
      );
      if (!row) return undefined;
      await touch(tx, row.investigation_id, nowMs);
      return taggedEventRecord(row);
    });
  }

  untag(id: number, nowMs: number): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const row = await tx.get<{ investigation_id: number }>('DELETE FROM tagged_events WHERE id = ? RETURNING investigation_id', [id]);
      if (!row) return false;
      await touch(tx, row.investigation_id, nowMs);
      return true;
    });
  }
}

/** Marks an investigation updated; false when it does not exist. */
async function touch(tx: SqlExecutor, investigationId: number, nowMs: number): Promise<boolean> {
  return (await tx.run('UPDATE investigations SET updated_ms = ? WHERE id = ?', [nowMs, investigationId])).changes > 0;
}

function investigationRecord(row: InvestigationRow): InvestigationRecord {
  return { id: row.id, name: row.name, notes: row.notes, createdBy: row.created_by, startedMs: row.started_ms, updatedMs: row.updated_ms };
}

function taggedEventRecord(row: TaggedEventRow): TaggedEventRecord {
  return {
    id: row.id,
    investigationId: row.investigation_id,
    processGuid: row.process_guid,
    sensorId: row.sensor_id,
    segmentId: row.segment_id,
    pid: row.pid,
    groupId: row.group_id,
    eventId: row.event_id,
    eventType: row.event_type,
    eventData: JSON.parse(row.event_data) as unknown,
    startMs: row.start_ms,
    taggedMs: row.tagged_ms,
    taggedBy: row.tagged_by,
    notes: row.notes,
  };
}
