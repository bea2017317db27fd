/**
 * The two output formats of cb-event-forwarder, so that what reads its output (the Splunk app,
 * the QRadar DSM) reads ours: JSON, one object per record, and LEEF 1.0, whose header carries the
 * record's `type` and whose attributes are the record's keys, sorted, tab-separated, with `docs`
 * promoted to the top and netconn addresses copied to QRadar's src/dst/srcPort/dstPort
 * (cb-event-forwarder pkg/leefencoder/leef_encoder.go). docs/forwarder.md has examples.
 */
export type ForwardFormat = 'json' | 'leef';

/** A record as cb-event-forwarder emits it: flat keys, `type` naming its bus routing key. */
export type ForwardRecord = Record<string, unknown>;

/**
 * A record that makes its own text (raw events, forwarder-raw-text.ts): laid out as a
 * ForwardRecord first, each would cost an object and a walk of it more than its text does.
 */
export abstract class TextRecord {
  /** Epoch seconds, as ForwardRecord's `timestamp` (HEC's envelope time). */
  abstract readonly timestamp: number;
  /** `timestamp` as a template writes it, made without the number between: HEC's envelope of every raw event writes it. */
  abstract readonly timestampText: string;
  abstract text(format: ForwardFormat): string;
}

/** What outputs deliver. */
export type Forwardable = ForwardRecord | TextRecord;

/** Text already made for a record, per format: outputs that share records (forwarder-raw.ts) encode each once. */
const encoded = { json: new WeakMap<ForwardRecord, string>(), leef: new WeakMap<ForwardRecord, string>() };

export function encodeRecord(record: Forwardable, format: ForwardFormat): string {
  if (record instanceof TextRecord) return record.text(format);
  let text = encoded[format].get(record);
  if (text === undefined) {
    text = format === 'json' ? JSON.stringify(record) : encodeLeef(record);
    encoded[format].set(record, text);
  }
  return text;
}

const LEEF_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '=': '\\=' };
export const escapeLeef = (text: string) => text.replace(/[\\\n\r\t=]/g, (c) => LEEF_ESCAPES[c]!);

const OUTBOUND: Readonly<Record<string, string>> = { local_ip: 'src', remote_ip: 'dst', protocol: 'proto', local_port: 'srcPort', remote_port: 'dstPort' };
const INBOUND: Readonly<Record<string, string>> = { local_ip: 'dst', remote_ip: 'src', protocol: 'proto', local_port: 'dstPort', remote_port: 'srcPort' };

function addQradarAddresses(target: ForwardRecord, from: Readonly<Record<string, unknown>>): void {
  const names = from.direction === 'inbound' ? INBOUND : OUTBOUND;
  for (const [key, value] of Object.entries(from)) {
    const name = names[key];
    if (name !== undefined) target[name] = value;
  }
}

export function encodeLeef(input: ForwardRecord): string {
  const record: ForwardRecord = { ...input };
  const docs = record.docs;
  if (Array.isArray(docs) && docs.length === 1 && typeof docs[0] === 'object' && docs[0] !== null) {
    Object.assign(record, docs[0]);
    delete record.docs;
  }
  const iocAttr = record.ioc_attr;
  if (typeof iocAttr === 'object' && iocAttr !== null) addQradarAddresses(record, iocAttr as Record<string, unknown>);
  if (record.type === 'ingress.event.netconn') addQradarAddresses(record, input);
  const pairs: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const value = record[key];
    if (value === undefined || value === null) continue;
    pairs.push(`${key}=${leefValue(value)}`);
  }
  const type = typeof record.type === 'string' ? record.type : 'unknown.event.type';
  // QRadar's DSM expects procstart under this name (leef_encoder.go does the same).
  const eventId = type === 'ingress.event.procstart' ? 'ingress.event.process' : type;
  const version = typeof record.cb_version === 'string' ? record.cb_version : '5.1';
  return `LEEF:1.0|CB|CB|${version}|${eventId}|${pairs.join('\t')}`;
}

export function leefValue(value: unknown): string {
  if (typeof value === 'string') return escapeLeef(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.length === 0 ? '' : value.length === 1 ? leefValue(value[0]) : JSON.stringify(value);
  if (typeof value === 'object' && value !== null) return Object.keys(value).length === 0 ? '' : JSON.stringify(value);
  return String(value);
}
