/**
 * Two shapes that give an event's own fields as an unnamed list, in the order of the event's
 * template, beside its rendered `Message`:
 *
 * - Fluent Bit's `winevtlog` input on Windows: `EventID`, `Channel`, `Computer`, `TimeCreated`
 *   ("2024-05-01 10:00:00 +0200") and `StringInserts`;
 * - PowerShell's `Get-WinEvent | ConvertTo-Json`: `Id`, `LogName`, `MachineName`, `TimeCreated`
 *   ("/Date(1603007405910)/" in Windows PowerShell, ISO in PowerShell 7) and `Properties`, a list
 *   of `{"Value": …}`.
 *
 * Sysmon renders its Message from that same template, a `Name: value` line per field after a title
 * line, so the names come from the Message and the values from the list: typed, and whole where a
 * value's own line break would cut a Message line. A Message whose name lines do not pair one to
 * one with the values is refused rather than guessed. Windows Security's process events render
 * prose, not names; their templates are fixed and documented by Microsoft, and are told apart by
 * the number of values, which each template version changes.
 */
import type { Flattened } from './sysmon-shapes.js';

type Named = { fields: Record<string, unknown> } | { unnamed: string };
type Json = Record<string, unknown>;

const SYSMON_CHANNEL = 'Microsoft-Windows-Sysmon/Operational';
const FIELD_LINE = /^([A-Za-z][A-Za-z0-9]*):(?: |$)/;

const SUBJECT = ['SubjectUserSid', 'SubjectUserName', 'SubjectDomainName', 'SubjectLogonId'];
const PROCESS_CREATED_V0 = [...SUBJECT, 'NewProcessId', 'NewProcessName', 'TokenElevationType', 'ProcessId'];
const PROCESS_CREATED_V1 = [...PROCESS_CREATED_V0, 'CommandLine'];
const PROCESS_CREATED_V2 = [...PROCESS_CREATED_V1, 'TargetUserSid', 'TargetUserName', 'TargetDomainName', 'TargetLogonId', 'ParentProcessName', 'MandatoryLabel'];
/** Security event id → its templates' field names, by value count. */
const SECURITY_TEMPLATES: Record<number, string[][]> = {
  4688: [PROCESS_CREATED_V0, PROCESS_CREATED_V1, PROCESS_CREATED_V2],
  4689: [[...SUBJECT, 'Status', 'ProcessId', 'ProcessName']],
};

export const isFluentBitRecord = (record: Json): boolean => Array.isArray(record.StringInserts);
export const isGetWinEventRecord = (record: Json): boolean => Array.isArray(record.Properties) && record.Id !== undefined;

/** Fluent Bit's record flat, as sysmon-fields.ts reads it; the reason when its inserts cannot be named. */
export function fromFluentBit(record: Json): Flattened {
  // "2024-05-01 10:00:00 +0200": the zone joined to the time, as parseTime() reads it.
  const created = typeof record.TimeCreated === 'string' ? record.TimeCreated.replace(/\s([+-]\d{2}:?\d{2})$/, '$1') : undefined;
  return flat(record.EventID, record.Channel, record.Computer, created, record.Message, record.StringInserts as unknown[]);
}

/** An EventLogRecord as ConvertTo-Json writes it, flat; the reason when its properties cannot be named. */
export function fromGetWinEvent(record: Json): Flattened {
  const values = (record.Properties as unknown[]).map((property) => propertyValue(isObject(property) ? property.Value : property));
  return flat(record.Id, record.LogName, record.MachineName, powershellTime(record.TimeCreated), record.Message, values);
}

function flat(eventId: unknown, channel: unknown, computer: unknown, created: string | undefined, message: unknown, values: unknown[]): Flattened {
  const named = fieldsOf(Number(eventId), channel, typeof message === 'string' ? message : '', values);
  if ('unnamed' in named) return { malformed: named.unnamed, reason: 'unnamed_fields' };
  return { record: { ...named.fields, EventID: eventId, Channel: channel, Hostname: computer, '@timestamp': created } };
}

function fieldsOf(eventId: number, channel: unknown, message: string, values: unknown[]): Named {
  if (channel === SYSMON_CHANNEL) {
    const names = message.split(/\r?\n/).slice(1).flatMap((line) => FIELD_LINE.exec(line)?.[1] ?? []);
    if (names.length !== values.length) {
      return { unnamed: `the Message names ${names.length} fields and the event holds ${values.length} unnamed values, so they cannot be named` };
    }
    return { fields: zip(names, values) };
  }
  const templates = channel === 'Security' ? SECURITY_TEMPLATES[eventId] : undefined;
  if (templates === undefined) return { fields: {} };
  const names = templates.find((template) => template.length === values.length);
  if (names === undefined) return { unnamed: `Security event ${eventId} with ${values.length} unnamed values matches no template of it` };
  return { fields: zip(names, values) };
}

/** Booleans (win:Boolean values, e.g. `Initiated`) as the text the event XML holds. */
function zip(names: string[], values: unknown[]): Json {
  const fields: Json = {};
  names.forEach((name, i) => (fields[name] = typeof values[i] === 'boolean' ? String(values[i]) : values[i]));
  return fields;
}

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Windows PowerShell writes a GUID value as `{"Guid": "…"}` where PowerShell 7 writes its text. */
function propertyValue(value: unknown): unknown {
  return isObject(value) && typeof value.Guid === 'string' ? value.Guid : value;
}

/** "/Date(1603007405910)/" (Windows PowerShell) as ISO; PowerShell 7's ISO text as it is. */
function powershellTime(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const epoch = /^\/Date\((-?\d+)\)\/$/.exec(value);
  return epoch ? new Date(Number(epoch[1])).toISOString() : value;
}
