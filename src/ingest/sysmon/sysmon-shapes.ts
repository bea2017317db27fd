/**
 * The shapes a Windows event arrives in, made flat (the form sysmon-fields.ts reads: `EventID`,
 * `Channel`, `Hostname` and the EventData fields side by side):
 *
 * - flat, as NXLog, Fluent Bit and Vector write it: taken as it is;
 * - Fluent Bit's Windows input and `Get-WinEvent | ConvertTo-Json`, EventData as an unnamed list
 *   named from the rendered Message (unnamed-values-shapes.ts);
 * - Winlogbeat and Elastic Agent (ECS): `winlog.event_data` beside `winlog.event_id`,
 *   `winlog.channel` and `winlog.computer_name`, ECS fields standing in for originals a processor
 *   removed;
 * - `{"Event":{"System":…,"EventData":…}}`, as evtx_dump writes `.evtx` files as JSON;
 * - Sysmon for Linux: a syslog line whose `message` holds the event XML, read with
 *   fast-xml-parser (validated first: the parser itself accepts truncated XML).
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { fromFluentBit, fromGetWinEvent, isFluentBitRecord, isGetWinEventRecord } from './unnamed-values-shapes.js';
import type { SysmonRecord } from './sysmon-fields.js';
import type { SysmonSkipReason } from './sysmon-reasons.js';

export type Flattened = { record: SysmonRecord } | { malformed: string; reason: SysmonSkipReason };

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

const xml = new XMLParser({
  ignoreAttributes: false, attributeNamePrefix: '', parseTagValue: false, parseAttributeValue: false, trimValues: false,
  isArray: (name) => name === 'Data',
});

/** `record` is the caller's no more: a shape may be completed in place (fromEcs). */
export function flatten(record: Json): Flattened {
  const message = record.message;
  if (typeof message === 'string' && message.includes('<Event')) return fromXml(message.slice(message.indexOf('<Event')));
  if (isObject(record.winlog)) return { record: fromEcs(record, record.winlog) };
  if (isObject(record.Event) && isObject(record.Event.System)) return { record: fromEventJson(record.Event.System, record.Event.EventData) };
  if (isFluentBitRecord(record)) return fromFluentBit(record);
  if (isGetWinEventRecord(record)) return fromGetWinEvent(record);
  return { record };
}

/**
 * Winlogbeat 7 and 8, Elastic Agent: the event's own fields are winlog.event_data. That object,
 * parsed for this request alone, is completed in place rather than copied: at tens of thousands of
 * events a second the copy of its twenty-odd fields was a good part of the cost of reading one.
 */
function fromEcs(document: Json, winlog: Json): SysmonRecord {
  const record = isObject(winlog.event_data) ? winlog.event_data : {};
  const host = isObject(document.host) ? document.host : {};
  const event = isObject(document.event) ? document.event : {};
  const process = isObject(document.process) ? document.process : {};
  const parent = isObject(process.parent) ? process.parent : {};
  // ECS stand-ins only where the originals are absent (a processor removed them).
  standIn(record, 'ProcessGuid', process.entity_id);
  standIn(record, 'ProcessId', process.pid);
  standIn(record, 'Image', process.executable);
  standIn(record, 'CommandLine', process.command_line);
  standIn(record, 'ParentProcessGuid', parent.entity_id);
  standIn(record, 'ParentProcessId', parent.pid);
  standIn(record, 'ParentImage', parent.executable);
  if (!Object.hasOwn(record, 'Hashes') && isObject(process.hash)) {
    const hash = process.hash;
    standIn(record, 'Hashes', [hash.md5 && `MD5=${String(hash.md5)}`, hash.sha256 && `SHA256=${String(hash.sha256)}`].filter(Boolean).join(',') || undefined);
  }
  record.EventID = winlog.event_id ?? event.code;
  record.Channel = winlog.channel;
  record.Hostname = winlog.computer_name ?? host.hostname ?? host.name;
  record['@timestamp'] = document['@timestamp'];
  return record;
}

function standIn(record: Json, field: string, value: unknown): void {
  if (value !== undefined && !Object.hasOwn(record, field)) record[field] = value;
}

/** evtx_dump's JSON: System's values, some with attributes (`{"#attributes":…,"#text":4688}`), and EventData by name. */
function fromEventJson(system: Json, eventData: unknown): SysmonRecord {
  const textOf = (value: unknown) => (isObject(value) ? value['#text'] : value);
  const created = isObject(system.TimeCreated) && isObject(system.TimeCreated['#attributes']) ? system.TimeCreated['#attributes'].SystemTime : undefined;
  return {
    ...(isObject(eventData) ? eventData : {}),
    EventID: textOf(system.EventID),
    Channel: textOf(system.Channel),
    Hostname: textOf(system.Computer),
    '@timestamp': created,
  };
}

function fromXml(text: string): Flattened {
  const valid = XMLValidator.validate(text);
  if (valid !== true) return { malformed: `the event XML is not well-formed: ${valid.err.msg} (line ${valid.err.line})`, reason: 'malformed_xml' };
  const parsed = xml.parse(text) as Json;
  const event = isObject(parsed.Event) ? parsed.Event : undefined;
  if (event === undefined || !isObject(event.System)) return { malformed: 'the XML is no Windows event (no Event/System)', reason: 'malformed_xml' };
  const system = event.System;
  const textOf = (value: unknown) => (isObject(value) ? value['#text'] : value);
  const fields: Json = {};
  const data = isObject(event.EventData) && Array.isArray(event.EventData.Data) ? event.EventData.Data : [];
  for (const item of data) {
    if (isObject(item) && typeof item.Name === 'string') fields[item.Name] = item['#text'] ?? '';
  }
  const created = isObject(system.TimeCreated) ? system.TimeCreated.SystemTime : undefined;
  return { record: { ...fields, EventID: textOf(system.EventID), Channel: textOf(system.Channel), Hostname: textOf(system.Computer), '@timestamp': created } };
}
