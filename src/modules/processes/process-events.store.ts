/**
 * Large event reads off the request thread: a process's segments read, decoded, ordered and
 * formatted in a read worker (process-events.sqlite.ts), so that a process with hundreds of
 * thousands of events (segment 0 merges them all) does not hold the event loop while it decodes.
 * The request thread only receives the finished lists.
 */
import type { SqliteReadPool } from '../../db/dialects/sqlite-read-pool.js';
import { siblingModule } from '../../db/worker-threads.js';
import type { EventApiVersion } from './event-formats/index.js';
import type { EncodedEventLists, EventLists, EventWindow } from './process-events.js';
import { pooledRead } from '../../db/pooled-read.js';

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

export const PROCESS_EVENTS_HANDLER = { name: 'process-events', url: siblingModule(import.meta.url, 'process-events.sqlite') };

export class PooledEventListStore implements EventListStore {
  constructor(private readonly pool: SqliteReadPool) {}

  list(request: EventListRequest): Promise<EventLists> {
    return pooledRead(this.pool, PROCESS_EVENTS_HANDLER.name, { ...request, encoded: false });
  }

  listEncoded(request: EventListRequest): Promise<EncodedEventLists> {
    return pooledRead(this.pool, PROCESS_EVENTS_HANDLER.name, { ...request, encoded: true });
  }
}
