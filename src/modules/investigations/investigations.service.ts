/**
 * Investigations and tagged events. Anyone may list, read and create investigations and tag what
 * they can see into any of them; an investigation is changed or deleted by its creator or a global
 * admin, the Default Investigation (1) never deleted; a tag is changed or removed by whoever made
 * it or a global admin. A tag on a process is seen only by those who may view the process's
 * sensor group: to anyone else it does not exist.
 */
import { ForbiddenError, InvalidRequestError, NotFoundError } from '../../domain/errors.js';
import { canViewGroup, requireSelfOrGlobalAdmin, type Principal } from '../../domain/permissions.js';
import { parseProcessId, REFERENCE_SEGMENT, type ProcessKey } from '../../domain/process-id.js';
import { formatRecordTime, parseClientTime } from '../../domain/record-time.js';
import type {
  Investigation, InvestigationCreateBody, InvestigationUpdateBody, TaggedEvent, TaggedEventCreateBody, TaggedEventUpdateBody,
} from './investigations.schemas.js';
import {
  DEFAULT_INVESTIGATION_ID, type InvestigationRecord, type InvestigationsStore, type TaggedEventRecord,
} from './investigations.store.js';

/** Finds a stored process and its segments (the process detail store). */
export interface ProcessFinder {
  find(key: ProcessKey): Promise<{ row: number; groupId: number; pid: number; startMs: number } | undefined>;
  segments(processRow: number): Promise<{ segmentId: number }[]>;
}

/** Investigations a process is tagged into, as process search's tagged_pids lists them. */
export type TaggedInvestigations = Map<string, { name: string; id: number }[]>;

const PROCESS_GUID_LENGTH = 36;
/** Segment 0 means all of a process's segments. */
const WHOLE_PROCESS = 0;

export class InvestigationsService {
  constructor(
    private readonly store: InvestigationsStore,
    private readonly processes: ProcessFinder,
    private readonly now: () => number = Date.now,
  ) {}

  async list(): Promise<Investigation[]> {
    return (await this.store.list()).map(investigationToWire);
  }

  async get(id: number): Promise<Investigation> {
    return investigationToWire(await this.existing(id));
  }

  async create(actor: Principal, body: InvestigationCreateBody): Promise<{ id: number }> {
    const created = await this.store.create({ name: body.name, notes: body.notes ?? '', createdBy: actor.username }, this.now());
    return { id: created.id };
  }

  async update(actor: Principal, id: number, body: InvestigationUpdateBody): Promise<{ result: 'success' }> {
    this.mayChange(actor, await this.existing(id));
    await this.store.update(id, { name: body.name, notes: body.notes }, this.now());
    return { result: 'success' };
  }

  async delete(actor: Principal, id: number): Promise<{ result: 'success' }> {
    const investigation = await this.existing(id);
    if (id === DEFAULT_INVESTIGATION_ID) throw new ForbiddenError('The Default Investigation cannot be deleted');
    this.mayChange(actor, investigation);
    await this.store.delete(id);
    return { result: 'success' };
  }

  /** Tags a process's event (or, without unique_id, a note) into an investigation. */
  async tag(actor: Principal, body: TaggedEventCreateBody): Promise<TaggedEvent> {
    const process = body.unique_id === undefined ? undefined : await this.visibleProcess(actor, body.unique_id, body.segment_id);
    const tagged = await this.store.tag({
      investigationId: body.investigation_id,
      processGuid: process?.guid ?? '',
      sensorId: process?.sensorId ?? 0,
      segmentId: process?.segmentId ?? body.segment_id ?? 0,
      pid: process?.pid ?? null,
      groupId: process?.groupId ?? null,
      eventId: body.event_id ?? null,
      eventType: body.event_type ?? '',
      eventData: body.event_data ?? {},
      startMs: process ? process.startMs : clientTime(body.start_date),
      taggedBy: actor.username,
      notes: body.notes ?? '',
    }, this.now());
    if (!tagged) throw new InvalidRequestError(`investigation_id: no investigation with id ${body.investigation_id}`);
    return taggedEventToWire(tagged);
  }

  async taggedEventsOf(actor: Principal, investigationId: number): Promise<TaggedEvent[]> {
    await this.existing(investigationId);
    return (await this.store.taggedEventsOf(investigationId)).filter((event) => visible(actor, event)).map(taggedEventToWire);
  }

  /** Tags on a process, named by its id or a document unique_id, or on every process with a pid. */
  async taggedEventsOn(actor: Principal, process: string): Promise<TaggedEvent[]> {
    const events = /^[0-9]+$/.test(process)
      ? await this.store.taggedEventsWithPid(Number(process))
      : await this.store.taggedEventsOn([processGuidOf(process)]);
    return events.filter((event) => visible(actor, event)).map(taggedEventToWire);
  }

  async updateTaggedEvent(actor: Principal, id: number, body: TaggedEventUpdateBody): Promise<TaggedEvent> {
    const event = await this.ownTaggedEvent(actor, id);
    const updated = await this.store.updateTaggedEvent(id, {
      eventType: body.event_type,
      eventData: body.event_data,
      notes: body.notes,
      // A process's start is the process's; only a note's date is the client's to change.
      startMs: event.processGuid === '' ? clientTime(body.start_date) ?? undefined : undefined,
    }, this.now());
    if (!updated) throw new NotFoundError(`No tagged event with id ${id}`);
    return taggedEventToWire(updated);
  }

  async untag(actor: Principal, id: number): Promise<{ result: 'success' }> {
    await this.ownTaggedEvent(actor, id);
    if (!(await this.store.untag(id, this.now()))) throw new NotFoundError(`No tagged event with id ${id}`);
    return { result: 'success' };
  }

  /** The investigations each of these processes (ids without segment) is tagged into, for process search's tagged_pids. */
  async taggedInvestigations(processGuids: readonly string[]): Promise<TaggedInvestigations> {
    const events = await this.store.taggedEventsOn(processGuids);
    if (events.length === 0) return new Map();
    const names = new Map((await this.store.list()).map((investigation) => [investigation.id, investigation.name]));
    const tagged: TaggedInvestigations = new Map();
    for (const event of events) {
      const list = tagged.get(event.processGuid) ?? [];
      if (!list.some((entry) => entry.id === event.investigationId)) list.push({ name: names.get(event.investigationId) ?? '', id: event.investigationId });
      tagged.set(event.processGuid, list);
    }
    return tagged;
  }

  private async existing(id: number): Promise<InvestigationRecord> {
    const investigation = await this.store.get(id);
    if (!investigation) throw new NotFoundError(`No investigation with id ${id}`);
    return investigation;
  }

  private mayChange(actor: Principal, investigation: InvestigationRecord): void {
    requireSelfOrGlobalAdmin(actor, investigation.createdBy, `change investigation ${investigation.id}`);
  }

  /** A tagged event the caller may see (else 404) and change (else 403). */
  private async ownTaggedEvent(actor: Principal, id: number): Promise<TaggedEventRecord> {
    const event = await this.store.taggedEvent(id);
    if (!event || !visible(actor, event)) throw new NotFoundError(`No tagged event with id ${id}`);
    requireSelfOrGlobalAdmin(actor, event.taggedBy, `change tagged event ${id}`);
    return event;
  }

  /**
   * The process a tag names, which the caller must be able to see, and its segment: segment_id, or
   * the one a document unique_id carries, else 0 (the whole process). A segment named must be one
   * of the process's (0 and 1 stand for the whole process, as in the process API), so that
   * cbapi's TaggedEvent.process finds it.
   */
  private async visibleProcess(actor: Principal, uniqueId: string, requestedSegment: number | undefined) {
    const guid = processGuidOf(uniqueId);
    const key = parseProcessId(guid);
    const process = key && (await this.processes.find(key));
    if (!process || !canViewGroup(actor, process.groupId)) throw new InvalidRequestError(`unique_id: no process ${uniqueId}`);
    const segmentId = requestedSegment
      ?? (uniqueId.length > PROCESS_GUID_LENGTH ? parseInt(uniqueId.slice(PROCESS_GUID_LENGTH + 1), 16) : WHOLE_PROCESS);
    if (segmentId > REFERENCE_SEGMENT && !(await this.processes.segments(process.row)).some((segment) => segment.segmentId === segmentId)) {
      throw new InvalidRequestError(`segment_id: process ${guid} has no segment ${segmentId}`);
    }
    return { guid, sensorId: key.sensorId, segmentId, groupId: process.groupId, pid: process.pid, startMs: process.startMs };
  }
}

/** A process id from a process id or a document unique_id (which appends the segment). */
function processGuidOf(id: string): string {
  return id.slice(0, PROCESS_GUID_LENGTH).toLowerCase();
}

function visible(actor: Principal, event: TaggedEventRecord): boolean {
  return event.groupId === null || canViewGroup(actor, event.groupId);
}

function clientTime(text: string | null | undefined): number | null {
  if (text === undefined || text === null) return null;
  const ms = parseClientTime(text);
  if (ms === undefined) throw new InvalidRequestError(`start_date: not a date and time: ${text}`);
  return ms;
}

function investigationToWire(investigation: InvestigationRecord): Investigation {
  return {
    id: investigation.id,
    name: investigation.name,
    notes: investigation.notes,
    created_by_user_id: investigation.createdBy,
    date_started: formatRecordTime(investigation.startedMs),
    last_updated: formatRecordTime(investigation.updatedMs),
  };
}

function taggedEventToWire(event: TaggedEventRecord): TaggedEvent {
  return {
    id: event.id,
    investigation_id: event.investigationId,
    unique_id: event.processGuid,
    segment_id: event.segmentId,
    process_id: event.pid,
    event_id: event.eventId,
    event_type: event.eventType,
    event_data: event.eventData,
    start_date: event.startMs === null ? null : formatRecordTime(event.startMs),
    date_tagged: formatRecordTime(event.taggedMs),
    tagged_by_user_id: event.taggedBy,
    notes: event.notes,
  };
}
