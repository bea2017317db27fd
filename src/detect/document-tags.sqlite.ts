/** The read-pool handler for document tags (wiring/sqlite-read-stores.ts): the lookups of document-tags.ts on a worker's connection. */
import type Database from 'better-sqlite3';
import type { ReadResult } from '../db/dialects/sqlite-read.messages.js';
import { cachedStatement } from '../db/dialects/sqlite-statements.js';
import { binaryTags, segmentTags, type DocumentTags, type RowReader } from './document-tags.js';

export type TagsRequest = { of: 'segments'; keys: number[] } | { of: 'binaries'; keys: string[] };

/** Rows of a SELECT on this connection, its statement prepared once. */
export function connectionReader(connection: Database.Database): RowReader {
  return <T>(sql: string, params: readonly unknown[]) => cachedStatement(connection, sql).all(...params) as T[];
}

export function run(connection: Database.Database, request: TagsRequest): ReadResult<Map<number | string, DocumentTags>> {
  const read = connectionReader(connection);
  const result: Map<number | string, DocumentTags> = request.of === 'segments' ? segmentTags(read, request.keys) : binaryTags(read, request.keys);
  return { result, more: false };
}
