/**
 * The embedded store's reads that run in the read pool's workers: process and binary search,
 * event pages, document tags, the dashboard's counts and the detection matcher's jobs. Each store
 * here is the request thread's side: it compiles what the worker needs (the query language to
 * SQLite SQL) and sends one job; the handler modules beside each module (`*.sqlite.ts`) answer.
 */
import type { Config } from '../config/schema.js';
import { compileBinaryCondition, compileProcessCondition } from '../query/compile/sqlite.js';
import { SqliteReadPool } from '../db/dialects/sqlite-read-pool.js';
import { ReadTimeout } from '../db/errors.js';
import { siblingModule } from '../db/worker-threads.js';
import type { DocumentTags, DocumentTagsReader } from '../detect/document-tags.js';
import type { TagsRequest } from '../detect/document-tags.sqlite.js';
import { compileSqliteSearch } from '../detect/match-specs.sqlite.js';
import type { MatchJob, MatchReads, MatchResult } from '../detect/match.plan.js';
import { QueryTimeoutError } from '../domain/errors.js';
import type { BinarySearchRequest, BinarySearchResult, CompiledBinarySearch } from '../modules/binaries/binary-search.plan.js';
import type { BinarySearchStore } from '../modules/binaries/binary-search.store.js';
import type { CountsRequest, DashboardStore, StoreCounts } from '../modules/dashboard/dashboard.store.js';
import type { EncodedEventLists, EventLists } from '../modules/processes/process-events.js';
import type { EventListRequest, EventListStore } from '../modules/processes/process-events.store.js';
import type { CompiledProcessSearch, ProcessSearchRequest, ProcessSearchResult } from '../modules/processes/process-search.plan.js';
import type { ProcessSearchStore } from '../modules/processes/process-search.store.js';
import type { PagingSnapshot } from '../query/search-request.js';

/** A read pool handler: its name in the pool and the module (a ReadHandler) the workers load. */
const handler = (name: string, module: string) => ({ name, url: siblingModule(import.meta.url, module) });

export const READ_HANDLERS = {
  processSearch: handler('process-search', '../modules/processes/process-search.sqlite'),
  binarySearch: handler('binary-search', '../modules/binaries/binary-search.sqlite'),
  processEvents: handler('process-events', '../modules/processes/process-events.sqlite'),
  detectionMatch: handler('detection-match', '../detect/match.sqlite'),
  documentTags: handler('document-tags', '../detect/document-tags.sqlite'),
  dashboard: handler('dashboard', '../modules/dashboard/dashboard.sqlite'),
};

/** The search pool every read below runs in. */
export function openReadPool(file: string, config: Pick<Config, 'searchWorkers' | 'searchThreadNice' | 'searchTimeLimitMs' | 'searchCacheMb' | 'searchMmapMb' | 'searchHeapMb'>): SqliteReadPool {
  return new SqliteReadPool(file, {
    workers: config.searchWorkers,
    nice: config.searchThreadNice,
    memory: { pageCacheMb: config.searchCacheMb, mmapMb: config.searchMmapMb },
    heapLimitMb: config.searchHeapMb,
    timeLimitMs: config.searchTimeLimitMs,
    untimedHandlers: [READ_HANDLERS.documentTags.name],
    handlers: Object.fromEntries(Object.values(READ_HANDLERS).map(({ name, url }) => [name, url])),
  });
}

/** A job on the read pool as a store method: one that outlives the pool's time limit is the client's QueryTimeoutError. */
async function pooledRead<T>(pool: SqliteReadPool, handler: string, request: unknown, paging?: PagingSnapshot): Promise<T> {
  try {
    return await pool.run<T>(handler, request, paging);
  } catch (error) {
    throw error instanceof ReadTimeout ? new QueryTimeoutError(error.limitMs) : error;
  }
}

export class PooledProcessSearchStore implements ProcessSearchStore {
  constructor(private readonly pool: SqliteReadPool) {}

  search({ predicate, ...request }: ProcessSearchRequest, paging: PagingSnapshot): Promise<ProcessSearchResult> {
    const compiled: CompiledProcessSearch = { ...request, condition: compileProcessCondition(predicate) };
    return pooledRead(this.pool, READ_HANDLERS.processSearch.name, compiled, paging);
  }
}

export class PooledBinarySearchStore implements BinarySearchStore {
  constructor(private readonly pool: SqliteReadPool) {}

  search({ predicate, ...request }: BinarySearchRequest, paging: PagingSnapshot): Promise<BinarySearchResult> {
    const condition = compileBinaryCondition(predicate, { observedInGroups: request.visibleGroups ?? undefined });
    const compiled: CompiledBinarySearch = { ...request, condition };
    return pooledRead(this.pool, READ_HANDLERS.binarySearch.name, compiled, paging);
  }
}

export class PooledEventListStore implements EventListStore {
  constructor(private readonly pool: SqliteReadPool) {}

  list(request: EventListRequest): Promise<EventLists> {
    return pooledRead(this.pool, READ_HANDLERS.processEvents.name, { ...request, encoded: false });
  }

  listEncoded(request: EventListRequest): Promise<EncodedEventLists> {
    return pooledRead(this.pool, READ_HANDLERS.processEvents.name, { ...request, encoded: true });
  }
}

export class PooledDashboardStore implements DashboardStore {
  constructor(private readonly pool: SqliteReadPool) {}

  counts(request: CountsRequest): Promise<StoreCounts> {
    return pooledRead(this.pool, READ_HANDLERS.dashboard.name, request);
  }
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
    return pooledRead(this.pool, READ_HANDLERS.documentTags.name, request);
  }
}

/** The matcher's jobs: a run that fails is a warning and the next run tries again (detection-runtime.ts), no client's error. */
export class PooledMatchReads implements MatchReads {
  readonly compile = compileSqliteSearch;

  constructor(private readonly pool: SqliteReadPool) {}

  run(job: MatchJob): Promise<MatchResult> {
    return this.pool.run<MatchResult>(READ_HANDLERS.detectionMatch.name, job);
  }
}
