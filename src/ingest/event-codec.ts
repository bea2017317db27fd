/**
 * How a segment's events are stored: one JSON array per chunk, each event a positional array
 * `[type code, ts, …fields in schema order]`. Field names, pid and process_start (the process's
 * own, known from its row) are left out, which halves what every event costs the disk and the
 * WAL; an absent field is `null` (trailing ones are dropped).
 *
 * Encoding runs on the ingest path before the writer, one JSON.stringify per process and batch
 * (per event it costs half as much again); decoding on the read path.
 */
import { EVENT_SCHEMAS, type EventType, type SensorEvent } from './event.schemas.js';

const ENVELOPE = new Set(['type', 'ts', 'pid', 'process_start']);
/** The event types by their stored code. */
export const STORED_TYPES = Object.keys(EVENT_SCHEMAS) as EventType[];
const TYPE_CODES = new Map(STORED_TYPES.map((type, code) => [type, code]));
/** Per type code, the fields stored after the timestamp, in the order of the schema. */
export const STORED_FIELDS: readonly (readonly string[])[] = STORED_TYPES.map((type) =>
  Object.keys(EVENT_SCHEMAS[type].properties).filter((name) => !ENVELOPE.has(name)));

/** A chunk's stored form: the events of one process, in order. */
export function encodeChunk(events: readonly SensorEvent[]): string {
  return JSON.stringify(events.map(toRow));
}

/** The rows of a chunk, to cut it at a segment boundary; joined again with JSON.stringify. */
export function chunkRows(data: string): unknown[][] {
  return JSON.parse(data) as unknown[][];
}

function toRow(event: SensorEvent): unknown[] {
  const code = TYPE_CODES.get(event.type)!;
  const fields = STORED_FIELDS[code]!;
  const row: unknown[] = [code, event.ts];
  const record = event as unknown as Record<string, unknown>;
  let last = 1;
  for (let i = 0; i < fields.length; i++) {
    const value = record[fields[i]!];
    row.push(value ?? null);
    if (value !== undefined && value !== null) last = i + 2;
  }
  row.length = last + 1;
  return row;
}

/** The events of a chunk, whole again: the process's pid and start go back onto each. */
export function decodeChunk(data: string | Buffer, pid: number, processStart: number): SensorEvent[] {
  const rows = JSON.parse(typeof data === 'string' ? data : data.toString('utf8')) as unknown[][];
  return rows.map((row) => decodeEvent(row, pid, processStart));
}

export function decodeEvent(row: readonly unknown[], pid: number, processStart: number): SensorEvent {
  const code = row[0] as number;
  const event: Record<string, unknown> = { type: STORED_TYPES[code], ts: row[1], pid, process_start: processStart };
  const fields = STORED_FIELDS[code]!;
  for (let i = 2; i < row.length; i++) {
    if (row[i] !== null) event[fields[i - 2]!] = row[i];
  }
  return event as unknown as SensorEvent;
}
