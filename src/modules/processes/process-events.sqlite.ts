/** A read-pool handler (process-events.store.ts, sent by wiring/sqlite-read-stores.ts): a process's events read, decoded and formatted in the worker. */
import type Database from 'better-sqlite3';
import type { ReadResult } from '../../db/dialects/sqlite-read.messages.js';
import { readSegmentChunks } from './chunk-files.sqlite.js';
import { decodeChunk } from '../../ingest/event-codec.js';
import { encodeEventLists, eventLists, type EncodedEventLists, type EventLists } from './process-events.js';
import type { EventListRequest } from './process-events.store.js';

export function run(connection: Database.Database, request: EventListRequest & { encoded: boolean }): ReadResult<EventLists | EncodedEventLists> {
  const segments = readSegmentChunks(connection, request.segmentRows).map((chunks) =>
    chunks.flatMap((data) => decodeChunk(data, request.pid, request.startMs)));
  const lists = eventLists(segments, request.window, request.version, request.sensorId);
  return { result: request.encoded ? encodeEventLists(lists) : lists, more: false };
}
