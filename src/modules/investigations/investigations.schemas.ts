/**
 * Wire shapes of investigations and tagged events (reference admin §9.3; cbapi's investigation.yaml
 * and tagged_event.yaml, legacy cbapi's event_add/event_info/event_update/event_del). Times are
 * server-local "YYYY-MM-DD HH:MM:SS.ffffff±HH:MM", as on Carbon Black's other database records.
 */
import { Type, type Static } from '@sinclair/typebox';
import { IntegerId } from '../../http/schemas.js';

const RecordTime = Type.String({ description: 'Server-local "YYYY-MM-DD HH:MM:SS.ffffff±HH:MM"' });
const Name = Type.String({ minLength: 1, maxLength: 256 });
const Notes = Type.String({ maxLength: 65536 });

export const Investigation = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  notes: Type.String(),
  created_by_user_id: Type.String({ description: 'Username of the creator; empty for the system\'s Default Investigation' }),
  date_started: RecordTime,
  last_updated: RecordTime,
});
export type Investigation = Static<typeof Investigation>;

export const IdParams = Type.Object({ id: IntegerId });

/** cbapi sends the object it holds (id null on create): name and notes are read. */
export const InvestigationCreateBody = Type.Object({ name: Name, notes: Type.Optional(Notes) });
export type InvestigationCreateBody = Static<typeof InvestigationCreateBody>;

export const InvestigationUpdateBody = Type.Partial(InvestigationCreateBody);
export type InvestigationUpdateBody = Static<typeof InvestigationUpdateBody>;

export const TaggedEvent = Type.Object({
  id: Type.Integer(),
  investigation_id: Type.Integer(),
  unique_id: Type.String({ description: 'The tagged process\'s id; empty for a note that names no process' }),
  segment_id: Type.Integer(),
  process_id: Type.Union([Type.Integer(), Type.Null()], { description: 'The tagged process\'s pid' }),
  event_id: Type.Union([Type.Integer(), Type.Null()]),
  event_type: Type.String({ description: 'filemod, regmod, netconn, modload, childproc, crossproc, procstart, …' }),
  event_data: Type.Unknown({ description: 'The tagged event as the client sent it' }),
  start_date: Type.Union([RecordTime, Type.Null()], { description: 'When the tagged process started (the sensor\'s clock)' }),
  date_tagged: RecordTime,
  tagged_by_user_id: Type.String({ description: 'Username of whoever tagged it' }),
  notes: Type.String(),
});
export type TaggedEvent = Static<typeof TaggedEvent>;

const ProcessGuid = Type.String({
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(-[0-9a-fA-F]{12})?$',
  description: 'A process id, or a document unique_id (process id and segment)',
});
/** One schema with two types, not a union: a union would let Fastify's coercion turn null into "". cbapi sends back the null it read. */
const StartDate = Type.Unsafe<string | null>({
  type: ['string', 'null'], maxLength: 64, description: 'Used only for a note that names no process; a process\'s start is the process\'s',
});

export const TaggedEventCreateBody = Type.Object({
  investigation_id: IntegerId,
  unique_id: Type.Optional(ProcessGuid),
  segment_id: Type.Optional(Type.Integer({ minimum: 0 })),
  event_id: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  event_type: Type.Optional(Type.String({ maxLength: 64 })),
  event_data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  start_date: Type.Optional(StartDate),
  notes: Type.Optional(Notes),
});
export type TaggedEventCreateBody = Static<typeof TaggedEventCreateBody>;

/** What a tag's owner may change; the process and investigation stay. */
export const TaggedEventUpdateBody = Type.Object({
  event_type: Type.Optional(Type.String({ maxLength: 64 })),
  event_data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  start_date: Type.Optional(StartDate),
  notes: Type.Optional(Notes),
});
export type TaggedEventUpdateBody = Static<typeof TaggedEventUpdateBody>;

/** The legacy bindings call it a process_id, which the tagged event record holds as the pid: both are taken. */
export const ProcessParams = Type.Object({
  proc_id: Type.Union([ProcessGuid, Type.String({ pattern: '^[0-9]{1,10}$', description: 'A pid: tags on processes with it on any sensor the caller can see' })]),
});
