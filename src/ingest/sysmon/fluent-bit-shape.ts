/**
 * Fluent Bit's `winevtlog` input on Windows: the System values by name (`EventID`, `Channel`,
 * `Computer`, `TimeCreated`), the rendered `Message`, and the event's own fields only as
 * `StringInserts`, an unnamed list in the order of the event's template.
 *
 * Sysmon renders its Message from that same template, a `Name: value` line per field after a title
 * line, so the names come from the Message and the values from the inserts: typed, and whole where
 * a value's own line break would cut a Message line. A Message whose name lines do not pair one to
 * one with the inserts is refused rather than guessed. Windows Security's process events render
 * prose, not names; their templates are fixed and documented by Microsoft, and are named by the
 * number of inserts, which each template version changes.
 */
import type { Flattened } from './sysmon-shapes.js';

type FluentBitFields = { fields: Record<string, unknown> } | { unnamed: string };

const SYSMON_CHANNEL = 'Microsoft-Windows-Sysmon/Operational';
const FIELD_LINE = /^([A-Za-z][A-Za-z0-9]*):(?: |$)/;

const SUBJECT = ['SubjectUserSid', 'SubjectUserName', 'SubjectDomainName', 'SubjectLogonId'];
const PROCESS_CREATED_V0 = [...SUBJECT, 'NewProcessId', 'NewProcessName', 'TokenElevationType', 'ProcessId'];
const PROCESS_CREATED_V1 = [...PROCESS_CREATED_V0, 'CommandLine'];
const PROCESS_CREATED_V2 = [...PROCESS_CREATED_V1, 'TargetUserSid', 'TargetUserName', 'TargetDomainName', 'TargetLogonId', 'ParentProcessName', 'MandatoryLabel'];
/** Security event id → its templates' field names, by insert count. */
const SECURITY_TEMPLATES: Record<number, string[][]> = {
  4688: [PROCESS_CREATED_V0, PROCESS_CREATED_V1, PROCESS_CREATED_V2],
  4689: [[...SUBJECT, 'Status', 'ProcessId', 'ProcessName']],
};

export const isFluentBitRecord = (record: Record<string, unknown>): boolean => Array.isArray(record.StringInserts);

/** The record flat, as sysmon-fields.ts reads it; the reason when its inserts cannot be named. */
export function fromFluentBit(record: Record<string, unknown>): Flattened {
  const named = fieldsOf(record, record.StringInserts as unknown[]);
  if ('unnamed' in named) return { malformed: named.unnamed, reason: 'unnamed_fields' };
  return {
    record: {
      ...named.fields,
      EventID: record.EventID,
      Channel: record.Channel,
      Hostname: record.Computer,
      // "2024-05-01 10:00:00 +0200": the zone joined to the time, as parseTime() reads it.
      '@timestamp': typeof record.TimeCreated === 'string' ? record.TimeCreated.replace(/\s([+-]\d{2}:?\d{2})$/, '$1') : undefined,
    },
  };
}

function fieldsOf(record: Record<string, unknown>, inserts: unknown[]): FluentBitFields {
  if (record.Channel === SYSMON_CHANNEL) {
    const message = typeof record.Message === 'string' ? record.Message : '';
    const names = message.split(/\r?\n/).slice(1).flatMap((line) => FIELD_LINE.exec(line)?.[1] ?? []);
    if (names.length !== inserts.length) {
      return { unnamed: `Fluent Bit's Message names ${names.length} fields and StringInserts holds ${inserts.length} values, so the values cannot be named` };
    }
    return { fields: zip(names, inserts) };
  }
  const templates = record.Channel === 'Security' ? SECURITY_TEMPLATES[Number(record.EventID)] : undefined;
  if (templates === undefined) return { fields: {} };
  const names = templates.find((template) => template.length === inserts.length);
  if (names === undefined) return { unnamed: `Security event ${String(record.EventID)} with ${inserts.length} StringInserts matches no template of it` };
  return { fields: zip(names, inserts) };
}

/** Booleans (win:Boolean inserts, e.g. `Initiated`) as the text the event XML holds. */
function zip(names: string[], values: unknown[]): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  names.forEach((name, i) => (fields[name] = typeof values[i] === 'boolean' ? String(values[i]) : values[i]));
  return fields;
}
