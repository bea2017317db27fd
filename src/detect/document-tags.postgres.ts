/**
 * Document tags on PostgreSQL: document-tags.ts's lookups run on the database from one snapshot,
 * so a page's tags come from one moment of the hit tables, as the embedded store's read does.
 */
import type { PostgresDatabase } from '../db/dialects/postgres.js';
import { readSnapshot } from '../db/dialects/postgres-read.js';
import { binaryTagLookup, readTags, segmentTagLookup, type DocumentTags, type DocumentTagsReader, type TagLookup } from './document-tags.js';

export class PostgresDocumentTags implements DocumentTagsReader {
  constructor(private readonly db: PostgresDatabase) {}

  segmentTags(segmentRows: readonly number[]): Promise<Map<number, DocumentTags>> {
    return this.read(segmentRows.length, segmentTagLookup(segmentRows));
  }

  binaryTags(md5s: readonly string[]): Promise<Map<string, DocumentTags>> {
    return this.read(md5s.length, binaryTagLookup(md5s));
  }

  private async read<K>(keys: number, lookup: TagLookup<K>): Promise<Map<K, DocumentTags>> {
    if (keys === 0) return new Map();
    return readSnapshot(this.db, (reader) => readTags(lookup, (sql, params) => reader.all(sql, params)));
  }
}
