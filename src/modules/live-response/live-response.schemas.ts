/**
 * Wire shapes of live response: the analyst API under /api/v1/cblr (reference admin §7, the real
 * 6.2 session and command objects) and what travels over the sensor protocol
 * (docs/sensor-protocol.md): the live_response_session and live_response instructions and the
 * results sensors acknowledge them with.
 */
import { Type, type Static } from '@sinclair/typebox';
import { IntegerId } from '../../http/schemas.js';

/** Every command Carbon Black's sensors knew; a sensor says which of them it runs when it attaches. */
export const COMMAND_NAMES = [
  'process list', 'kill', 'create process', 'directory list', 'get file', 'put file', 'delete file', 'create directory',
  'reg enum key', 'reg query value', 'reg create key', 'reg delete key', 'reg set value', 'reg delete value', 'memdump',
] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

export const SESSION_STATUSES = ['pending', 'active', 'close', 'timeout', 'error'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];
export const COMMAND_STATUSES = ['pending', 'complete', 'error', 'cancel'] as const;
export type CommandStatus = (typeof COMMAND_STATUSES)[number];

const EpochSeconds = Type.Number({ description: 'epoch seconds with a fraction, server clock' });

export const Session = Type.Object({
  id: Type.Integer(),
  sensor_id: Type.Integer(),
  status: Type.Union(SESSION_STATUSES.map((s) => Type.Literal(s)), {
    description: 'pending until the sensor attaches; close when a client closed it; timeout when the sensor or the client went quiet',
  }),
  hostname: Type.String(),
  address: Type.String({ description: 'the sensor\'s first IP address' }),
  os_version: Type.String(),
  supported_commands: Type.Array(Type.String(), { description: 'what the sensor said it runs; empty until it attaches' }),
  drives: Type.Array(Type.String()),
  current_working_directory: Type.String(),
  create_time: EpochSeconds,
  storage_size: Type.String({ description: 'bytes held in the session\'s files, as text (as Carbon Black sent it)' }),
  storage_ttl: Type.Integer({ description: 'days the session\'s files are kept' }),
  check_in_timeout: Type.Integer({ description: 'seconds the sensor has to attach, and may go without checking in' }),
  session_timeout: Type.Integer({ description: 'seconds an active session lasts without API use' }),
  sensor_wait_timeout: Type.Integer({ description: 'seconds the sensor has to answer a command' }),
});
export type Session = Static<typeof Session>;

export const SessionParams = Type.Object({ session_id: IntegerId });
export const CommandParams = Type.Object({ session_id: IntegerId, command_id: IntegerId });
export const FileParams = Type.Object({ session_id: IntegerId, file_id: IntegerId });

export const SessionListQuery = Type.Object({
  active_only: Type.Boolean({ default: false, description: 'only pending and active sessions (cbapi sends true)' }),
});

export const SessionCreateBody = Type.Object({ sensor_id: IntegerId });

/** cbapi PUTs the session as it read it, with status "close"; only the status is read. */
export const SessionUpdateBody = Type.Object({
  status: Type.Union(SESSION_STATUSES.map((s) => Type.Literal(s)), { description: '"close" closes the session; its current status changes nothing' }),
});
export type SessionUpdateBody = Static<typeof SessionUpdateBody>;

const CommandObject = Type.Union([Type.String({ maxLength: 4096 }), Type.Integer({ minimum: 0 })], {
  description: 'what the command acts on: a path, a registry key, a command line, or a pid (kill)',
});

/** Options some commands take (cbapi's live_response_api), passed to the sensor as they are. */
const CommandOptions = {
  wait: Type.Optional(Type.Boolean({ description: 'create process: wait for the process to exit' })),
  output_file: Type.Optional(Type.String({ maxLength: 4096, description: 'create process: where its output goes' })),
  working_directory: Type.Optional(Type.String({ maxLength: 4096, description: 'create process' })),
  compress: Type.Optional(Type.Boolean({ description: 'memdump: zip the dump' })),
  value_type: Type.Optional(Type.String({ maxLength: 64, description: 'reg set value: REG_SZ, REG_DWORD, …' })),
  value_data: Type.Optional(Type.Unknown({ description: 'reg set value' })),
  overwrite: Type.Optional(Type.Boolean({ description: 'reg set value' })),
};
export const COMMAND_OPTION_NAMES = Object.keys(CommandOptions) as (keyof typeof CommandOptions)[];

export const CommandCreateBody = Type.Object({
  name: Type.Union(COMMAND_NAMES.map((n) => Type.Literal(n))),
  object: Type.Optional(CommandObject),
  session_id: Type.Optional(Type.Integer({ description: 'cbapi repeats the session id; it must be the one in the path' })),
  file_id: Type.Optional(IntegerId),
  ...CommandOptions,
});
export type CommandCreateBody = Static<typeof CommandCreateBody>;

export const CommandQuery = Type.Object({
  wait: Type.Boolean({ default: false, description: 'answer once the command has finished, or its time is up' }),
});

export const ProcessEntry = Type.Object({
  pid: Type.Integer({ minimum: 0 }),
  parent: Type.Optional(Type.Integer({ minimum: 0 })),
  path: Type.String(),
  command_line: Type.Optional(Type.String()),
  create_time: Type.Optional(Type.Integer({ description: 'epoch seconds, sensor clock' })),
  proc_guid: Type.Optional(Type.String()),
  parent_guid: Type.Optional(Type.String()),
  sid: Type.Optional(Type.String()),
  username: Type.Optional(Type.String()),
});

export const FileEntry = Type.Object({
  filename: Type.String(),
  attributes: Type.Array(Type.String(), { description: 'DIRECTORY, ARCHIVE, READONLY, HIDDEN, SYSTEM, …' }),
  size: Type.Integer({ minimum: 0 }),
  create_time: Type.Optional(Type.Integer()),
  last_access_time: Type.Optional(Type.Integer()),
  last_write_time: Type.Optional(Type.Integer()),
});

const RegistryValue = Type.Object({ value_name: Type.String(), value_type: Type.String(), value_data: Type.Unknown() });

/** What a command's answer may carry besides its result code, by the key cbapi reads it under. */
export const CommandOutput = Type.Object({
  processes: Type.Optional(Type.Array(ProcessEntry, { description: 'process list' })),
  files: Type.Optional(Type.Array(FileEntry, { description: 'directory list' })),
  values: Type.Optional(Type.Array(RegistryValue, { description: 'reg enum key' })),
  sub_keys: Type.Optional(Type.Array(Type.String(), { description: 'reg enum key' })),
  value: Type.Optional(RegistryValue),
  pid: Type.Optional(Type.Integer({ description: 'create process' })),
  return_code: Type.Optional(Type.Integer({ description: 'create process, memdump' })),
  complete: Type.Optional(Type.Boolean({ description: 'memdump' })),
  percentdone: Type.Optional(Type.Number({ description: 'memdump' })),
  dumping: Type.Optional(Type.Boolean({ description: 'memdump' })),
  compressing: Type.Optional(Type.Boolean({ description: 'memdump' })),
});
export type CommandOutput = Static<typeof CommandOutput>;

export const Command = Type.Object({
  id: Type.Integer(),
  session_id: Type.Integer(),
  sensor_id: Type.Integer(),
  name: Type.String(),
  object: Type.Optional(CommandObject),
  status: Type.Union(COMMAND_STATUSES.map((s) => Type.Literal(s)), {
    description: 'pending until the sensor answers; cancel when the session was closed first',
  }),
  username: Type.String(),
  create_time: EpochSeconds,
  completion: Type.Optional(EpochSeconds),
  result_code: Type.Optional(Type.Integer({ description: 'an HRESULT (0: success), e.g. 2147942402 for a missing file' })),
  result_type: Type.Optional(Type.String()),
  result_desc: Type.Optional(Type.String()),
  file_id: Type.Optional(Type.Integer({ description: 'get file: where the content will be; put file: what is sent' })),
  ...CommandOptions,
  ...CommandOutput.properties,
});
export type Command = Static<typeof Command>;

export const SessionFile = Type.Object({
  id: Type.Integer(),
  session_id: Type.Integer(),
  file_name: Type.String(),
  size: Type.Integer({ description: 'bytes; 0 until the content has arrived' }),
  size_uploaded: Type.Integer(),
  status: Type.Integer({ description: '0 once the content is there, 1 while it is awaited' }),
  create_time: EpochSeconds,
});
export type SessionFile = Static<typeof SessionFile>;

/** Payload of a live_response_session instruction: open this session. */
export interface SessionInstruction {
  session_id: number;
}

/** Payload of a live_response instruction: run this command. */
export interface CommandInstruction {
  session_id: number;
  command_id: number;
  name: CommandName;
  object?: string | number;
  /** get file: upload the content to /sensor/v1/live-response/files/{file_id}; put file: download it from there. */
  file_id?: number;
  [option: string]: unknown;
}

/** How a sensor acknowledges live_response_session: what it offers, or why it cannot. */
export const AttachResult = Type.Union([
  Type.Object({
    supported_commands: Type.Array(Type.String({ maxLength: 64 }), { maxItems: 64 }),
    drives: Type.Optional(Type.Array(Type.String({ maxLength: 256 }), { maxItems: 64 })),
    current_working_directory: Type.Optional(Type.String({ maxLength: 4096 })),
  }),
  Type.Object({ status: Type.Literal('error'), result_desc: Type.Optional(Type.String({ maxLength: 4096 })) }),
]);
export type AttachResult = Static<typeof AttachResult>;

/** How a sensor acknowledges a live_response instruction. */
export const CommandResult = Type.Composite([
  Type.Object({
    status: Type.Union([Type.Literal('complete'), Type.Literal('error')]),
    result_code: Type.Optional(Type.Integer({ minimum: 0, maximum: 0xffffffff })),
    result_type: Type.Optional(Type.String({ maxLength: 64 })),
    result_desc: Type.Optional(Type.String({ maxLength: 4096 })),
  }),
  CommandOutput,
]);
export type CommandResult = Static<typeof CommandResult>;
