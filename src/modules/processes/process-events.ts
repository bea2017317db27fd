/**
 * A process's events as the events routes serve them: the segments asked for merged into one
 * time-ordered list (segment 0 merges all), then the client's time window and page.
 */
import type { SensorEvent } from '../../ingest/event.schemas.js';
import { completeLists, EVENT_FORMATS, type CompleteLists, type EventApiVersion } from './event-formats/index.js';

/** The events that appear in `*_complete` lists (a process's own start and end are its document). */
export type ListedEvent = Exclude<SensorEvent, { type: 'process_start' | 'process_end' }>;

export interface EventWindow {
  /** Sensor clock, inclusive. */
  fromMs?: number | undefined;
  toMs?: number | undefined;
  /** Events to skip, after the time window. */
  start?: number | undefined;
  /** At most this many, after skipping. */
  count?: number | undefined;
}

/**
 * The listed events of these segments in time order. Events of equal time keep the order the
 * sensor sent them in, and earlier segments come first: a stable sort over the segments in order.
 */
export function timeOrdered(segments: readonly (readonly SensorEvent[])[]): ListedEvent[] {
  const events = segments.flat().filter((event): event is ListedEvent => event.type !== 'process_start' && event.type !== 'process_end');
  return events.sort((a, b) => a.ts - b.ts);
}

export function windowOf(events: readonly ListedEvent[], window: EventWindow): ListedEvent[] {
  const { fromMs, toMs } = window;
  const inTime = fromMs === undefined && toMs === undefined
    ? events
    : events.filter((event) => (fromMs === undefined || event.ts >= fromMs) && (toMs === undefined || event.ts <= toMs));
  const start = window.start ?? 0;
  return inTime.slice(start, window.count === undefined ? undefined : start + window.count);
}

/** The md5s of binaries the events name: modules loaded, children started, processes touched. */
export function namedBinaries(events: readonly ListedEvent[]): Set<string> {
  const md5s = new Set<string>();
  for (const event of events) {
    if (event.type === 'modload') md5s.add(event.md5);
    else if (event.type === 'childproc' && event.md5) md5s.add(event.md5);
    else if (event.type === 'crossproc' && event.target_md5) md5s.add(event.target_md5);
  }
  return md5s;
}

/** A process's events as the events and preview routes show them, ready for the response. */
export interface EventLists {
  lists: CompleteLists;
  /** The md5s of the binaries the listed events name (namedBinaries). */
  binaries: string[];
}

/** The segments' events in time order, windowed, in one API version's `*_complete` lists. */
export function eventLists(segments: readonly (readonly SensorEvent[])[], window: EventWindow, version: EventApiVersion, sensorId: number): EventLists {
  const events = windowOf(timeOrdered(segments), window);
  return { lists: completeLists(events, EVENT_FORMATS[version], sensorId), binaries: [...namedBinaries(events)] };
}

/**
 * EventLists with the lists already JSON: the members of an object, without its braces, as UTF-8.
 * A large read's lists cross from the read worker as one block of bytes and go out as they are,
 * so the request thread neither rebuilds nor serializes hundreds of thousands of entries.
 */
export interface EncodedEventLists {
  members: Uint8Array;
  binaries: string[];
}

export function encodeEventLists({ lists, binaries }: EventLists): EncodedEventLists {
  return { members: Buffer.from(JSON.stringify(lists).slice(1, -1)), binaries };
}

/** `{"elapsed":…,"process":{…document,…lists}}`: an events response from its head and its encoded lists. */
export function eventsResponseBody(head: { elapsed: number; process: object }, members: Uint8Array): Buffer {
  const text = JSON.stringify(head);
  // The head ends with the process object's and the envelope's closing braces; the lists go inside the first.
  const opening = text.slice(0, -2);
  const separator = members.length > 0 && opening.at(-1) !== '{' ? ',' : '';
  return Buffer.concat([Buffer.from(opening + separator), members, Buffer.from('}}')]);
}
