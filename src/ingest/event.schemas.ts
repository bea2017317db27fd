/**
 * The events a sensor reports, as they travel on the wire (docs/sensor-protocol.md). Every
 * event names the process that acted by `pid` and `process_start` (the sensor's clock, epoch ms);
 * `ts` is when it happened on the sensor's clock. Together they cover every Carbon Black event
 * type and every field of the v1–v4 event formats (reference core §4.5–4.6).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';

const EpochMs = Type.Integer({ minimum: 0, maximum: 8_640_000_000_000_000 });
const Pid = Type.Integer({ minimum: 0, maximum: 0xffffffff });
const Md5 = Type.String({ pattern: '^[0-9a-fA-F]{32}$' });
const Sha256 = Type.String({ pattern: '^[0-9a-fA-F]{64}$' });
const Path = Type.String({ maxLength: 4096 });
const Text = Type.String({ maxLength: 32768 });
const Port = Type.Integer({ minimum: 0, maximum: 65535 });
const Ip = Type.String({ maxLength: 45, description: 'IPv4 dotted quad or IPv6 text' });
/** A keyword field of the query language (reference §6): any text, though usually an md5. */
const Fingerprint = Type.String({ maxLength: 1024, description: 'TLS fingerprint, usually the md5 of the JA3 string' });

function event<T extends string, P extends Record<string, TSchema>>(type: T, fields: P) {
  return Type.Object({
    type: Type.Literal(type),
    ts: EpochMs,
    pid: Pid,
    process_start: EpochMs,
    ...fields,
  });
}

export const ProcessStartEvent = event('process_start', {
  path: Path,
  cmdline: Type.Optional(Text),
  username: Type.Optional(Type.String({ maxLength: 512 })),
  uid: Type.Optional(Type.String({ maxLength: 256 })),
  md5: Type.Optional(Md5),
  sha256: Type.Optional(Sha256),
  parent_pid: Type.Optional(Pid),
  parent_start: Type.Optional(EpochMs),
  parent_path: Type.Optional(Path),
  parent_md5: Type.Optional(Md5),
});

export const ProcessEndEvent = event('process_end', {});

export const FilemodEvent = event('filemod', {
  action: Type.Union([Type.Literal('create'), Type.Literal('first_write'), Type.Literal('delete'), Type.Literal('last_write')]),
  path: Path,
  md5: Type.Optional(Md5),
  sha256: Type.Optional(Sha256),
  file_type: Type.Optional(Type.Integer({ minimum: 0, maximum: 255 })),
  tamper: Type.Optional(Type.Boolean()),
});

export const RegmodEvent = event('regmod', {
  action: Type.Union([Type.Literal('create_key'), Type.Literal('first_write'), Type.Literal('delete_key'), Type.Literal('delete_value')]),
  path: Path,
  tamper: Type.Optional(Type.Boolean()),
});

export const NetconnEvent = event('netconn', {
  direction: Type.Union([Type.Literal('outbound'), Type.Literal('inbound')]),
  proto: Type.Integer({ minimum: 0, maximum: 255, description: '6 TCP, 17 UDP' }),
  remote_ip: Ip,
  remote_port: Port,
  local_ip: Type.Optional(Ip),
  local_port: Type.Optional(Port),
  domain: Type.Optional(Type.String({ maxLength: 255 })),
  proxy_ip: Type.Optional(Ip),
  proxy_port: Type.Optional(Port),
  ja3: Type.Optional(Fingerprint),
  ja3s: Type.Optional(Fingerprint),
});

export const ModloadEvent = event('modload', {
  path: Path,
  md5: Md5,
  sha256: Type.Optional(Sha256),
});

export const ChildprocEvent = event('childproc', {
  action: Type.Union([Type.Literal('start'), Type.Literal('end')]),
  child_pid: Pid,
  child_start: EpochMs,
  path: Path,
  md5: Type.Optional(Md5),
  sha256: Type.Optional(Sha256),
  cmdline: Type.Optional(Text),
  username: Type.Optional(Type.String({ maxLength: 512 })),
  suppressed: Type.Optional(Type.Boolean()),
  tamper: Type.Optional(Type.Boolean()),
});

export const CrossprocEvent = event('crossproc', {
  action: Type.Union([Type.Literal('remote_thread'), Type.Literal('process_open'), Type.Literal('thread_open')]),
  target_pid: Pid,
  target_start: EpochMs,
  target_path: Path,
  target_md5: Type.Optional(Md5),
  target_sha256: Type.Optional(Sha256),
  access: Type.Integer({ minimum: 0, maximum: 0xffffffff, description: 'requested access mask' }),
  is_target: Type.Optional(Type.Boolean({ description: 'true: this process was the target and target_* describe the actor' })),
  tamper: Type.Optional(Type.Boolean()),
});

export const ProcessblockEvent = event('processblock', {
  blocked_md5: Md5,
  blocked_path: Path,
  blocked_cmdline: Type.Optional(Text),
  blocked_uid: Type.Optional(Type.String({ maxLength: 256 })),
  blocked_username: Type.Optional(Type.String({ maxLength: 512 })),
  block_type: Type.Optional(Type.Integer()),
  block_event: Type.Optional(Type.Integer()),
  block_result: Type.Optional(Type.Integer()),
  block_error: Type.Optional(Type.Integer()),
});

export const EVENT_SCHEMAS = {
  process_start: ProcessStartEvent,
  process_end: ProcessEndEvent,
  filemod: FilemodEvent,
  regmod: RegmodEvent,
  netconn: NetconnEvent,
  modload: ModloadEvent,
  childproc: ChildprocEvent,
  crossproc: CrossprocEvent,
  processblock: ProcessblockEvent,
} as const;

export type EventType = keyof typeof EVENT_SCHEMAS;
export type SensorEvent = { [K in EventType]: Static<(typeof EVENT_SCHEMAS)[K]> }[EventType];
export type EventOf<K extends EventType> = Static<(typeof EVENT_SCHEMAS)[K]>;

/** Largest number of events one upload may carry. */
export const MAX_EVENTS_PER_BATCH = 10_000;

/** An event upload: `sequence` counts this sensor's batches from 1, one batch in flight at a time. */
export const EventBatch = Type.Object({
  sequence: Type.Integer({ minimum: 1 }),
  events: Type.Array(Type.Unknown(), { maxItems: MAX_EVENTS_PER_BATCH }),
});
export type EventBatch = Static<typeof EventBatch>;

/** The pipeline's answer to an events upload: what it kept, dropped and refused, event by event. */
export const EventRejection = Type.Object({ index: Type.Integer(), reason: Type.String(), detail: Type.String() });

export const EventsReply = Type.Object({
  sequence: Type.Integer(),
  duplicate: Type.Boolean({ description: 'true: this sequence was committed before; nothing was stored again' }),
  accepted: Type.Integer(),
  filtered: Type.Integer({ description: 'dropped by ingress filters' }),
  rejected: Type.Array(EventRejection),
});
export type EventsReply = Static<typeof EventsReply>;
