/**
 * Document tags read in the search pool's workers (document-tags.sqlite.ts), so that the joins
 * behind a page of results never hold the request thread (document-tags.ts says why).
 */
import type { SqliteReadPool } from '../db/dialects/sqlite-read-pool.js';
import { siblingModule } from '../db/worker-threads.js';
import { pooledRead } from '../db/pooled-read.js';
import type { DocumentTags } from './document-tags.js';
import type { TagsRequest } from './document-tags.sqlite.js';

export const DOCUMENT_TAGS_HANDLER = { name: 'document-tags', url: siblingModule(import.meta.url, 'document-tags.sqlite') };

export interface DocumentTagsReader {
  /** Tags of process documents (all segments of each one's process), by segment row. */
  segmentTags(segmentRows: readonly number[]): Promise<Map<number, DocumentTags>>;
  /** Tags of binary documents, by md5 in lower case. */
  binaryTags(md5s: readonly string[]): Promise<Map<string, DocumentTags>>;
}

export class PooledDocumentTags implements DocumentTagsReader {
  constructor(private readonly pool: SqliteReadPool) {}

  segmentTags(segmentRows: readonly number[]): Promise<Map<number, DocumentTags>> {
    return this.read({ of: 'segments', keys: [...segmentRows] });
  }

  binaryTags(md5s: readonly string[]): Promise<Map<string, DocumentTags>> {
    return this.read({ of: 'binaries', keys: [...md5s] });
  }

  private async read<K>(request: TagsRequest): Promise<Map<K, DocumentTags>> {
    if (request.keys.length === 0) return new Map();
    return pooledRead(this.pool, DOCUMENT_TAGS_HANDLER.name, request);
  }
}
