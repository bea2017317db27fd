/**
 * Large event reads off the request thread: a process's segments read, decoded, ordered and
 * formatted away from the event loop, so that a process with hundreds of thousands of events
 * (segment 0 merges them all) does not hold it while it decodes. The request thread only receives
 * the finished lists. One implementation per database, chosen by the container; the embedded
 * store's runs in a read worker (process-events.sqlite.ts, through wiring/sqlite-read-stores.ts).
 */
import type { EventApiVersion } from './event-formats/index.js';
import type { EncodedEventLists, EventLists, EventWindow } from './process-events.js';

export interface EventListRequest {
  pid: number;
  /** The process's start (sensor clock), which its stored events leave out. */
  startMs: number;
  sensorId: number;
  /** segments.id of each segment to read, oldest first. */
  segmentRows: number[];
  window: EventWindow;
  version: EventApiVersion;
}

export interface EventListStore {
  /** The listed events of these segments (eventLists): in time order, windowed and formatted. */
  list(request: EventListRequest): Promise<EventLists>;
  /** The same, with the lists as JSON (encodeEventLists). */
  listEncoded(request: EventListRequest): Promise<EncodedEventLists>;
}
