/**
 * Process search on PostgreSQL answers as the embedded store's does: the same requests (count,
 * page, sort, grouping, facets) over the same events, on the SQLite read pool and on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bothStores, FLEET_T0, type BothStores } from '../../../test/support/both-stores.js';
import { SqliteReadPool } from '../../db/dialects/sqlite-read-pool.js';
import { analyzeParams } from '../../query/params.js';
import { SqlBinariesStore } from '../binaries/binaries.store.js';
import type { BinaryMetadata } from '../binaries/binary-upload.schemas.js';
import { PROCESS_FACETS } from './process-search.facets.js';
import type { ProcessSearchRequest, ProcessSearchResult, SortKey } from './process-search.plan.js';
import { PostgresProcessSearchStore } from './process-search.postgres.js';
import { PooledProcessSearchStore, READ_HANDLERS } from '../../wiring/sqlite-read-stores.js';

interface Case {
  q: string; sort?: SortKey; descending?: boolean; start?: number; rows?: number; grouped?: boolean; facets?: string[]; groups?: number[] | null;
  /** Facets that may have no entries (every name asked at once). */
  mayBeEmpty?: boolean;
}

/** The binary of the fleet's processes (test/support/sensors.ts), known to both stores with its metadata. */
const PROCESS_BINARY = {
  md5: 'AD7B9C14083B52BC532FBA5948342B98', size: 4_096, observed_filename: 'c:\\windows\\system32\\cmd.exe', company_name: 'Microsoft Corporation',
  product_name: 'Windows', is_64bit: true, digsig: { result: 'Signed', publisher: 'Microsoft Windows' },
} as BinaryMetadata;

const CASES: Case[] = [
  { q: '' },
  { q: '', sort: 'process_name', descending: false, rows: 4, start: 2 },
  { q: 'process_name:cmd.exe', facets: ['hostname', 'process_name', 'group', 'start', 'hour_of_day'] },
  { q: 'domain:com', sort: 'last_update', facets: ['domain', 'ipaddr', 'netconn_count'] },
  { q: 'cmdline:x.ini', grouped: true, facets: ['username_full'] },
  { q: 'modload:ntdll.dll', grouped: true, sort: 'hostname', descending: true },
  { q: 'hostname:other', facets: ['os_type', 'host_type'] },
  { q: '-cmdline:whoami', sort: 'start', rows: 3 },
  { q: 'process_name:cmd.exe', groups: [2] },
  { q: 'process_name:cmd.exe', groups: [1] },
  { q: '', facets: ['digsig_result', 'company_name', 'product_name', 'is_64bit', 'digsig_publisher', 'orig_mod_len'] },
  { q: '', grouped: true, facets: [...PROCESS_FACETS.keys()], mayBeEmpty: true },
  { q: '', facets: [...PROCESS_FACETS.keys()], mayBeEmpty: true },
  { q: 'process_name:cmd.exe', facets: [...PROCESS_FACETS.keys()], mayBeEmpty: true },
  { q: 'domain:com', groups: [1], facets: [...PROCESS_FACETS.keys()], mayBeEmpty: true },
];

/** What is compared: the documents' identities and what a reader sees of them. */
function comparable(result: ProcessSearchResult) {
  return {
    total: result.total,
    rows: result.rows.map((r) => [r.sensor_id, r.pid, r.segment_id, r.process_name, r.hostname, r.group_name, r.event_count, r.netconn_count]),
    facets: result.facets,
  };
}

describe('process search on PostgreSQL answers as on SQLite', () => {
  let stores: BothStores;
  let sqlite: PooledProcessSearchStore;
  let pool: SqliteReadPool;
  let postgres: PostgresProcessSearchStore;
  before(async () => {
    stores = await bothStores();
    for (const db of [stores.sqlite, stores.postgres]) await new SqlBinariesStore(db).record(PROCESS_BINARY, undefined, 1, FLEET_T0);
    pool = new SqliteReadPool(stores.sqlite.connection.name, { workers: 1, handlers: { [READ_HANDLERS.processSearch.name]: READ_HANDLERS.processSearch.url } });
    sqlite = new PooledProcessSearchStore(pool);
    postgres = new PostgresProcessSearchStore(stores.postgres);
  });
  after(async () => {
    await pool.close();
    await stores.close();
  });

  for (const [i, c] of CASES.entries()) {
    it(`${c.q || '(all)'}${c.grouped ? ' grouped' : ''}${c.sort ? ` by ${c.sort}` : ''}${c.groups ? ` in groups ${c.groups}` : ''}`, async () => {
      const now = FLEET_T0 + 86_400_000;
      const { predicate } = analyzeParams({ q: c.q }, { index: 'process', now });
      const request: ProcessSearchRequest = {
        predicate, visibleGroups: c.groups ?? null, sort: { key: c.sort ?? 'last_update', descending: c.descending ?? true },
        start: c.start ?? 0, rows: c.rows ?? 100, grouped: c.grouped ?? false, facets: c.facets ?? [], nowMs: now,
      };
      const paging = { key: `case-${i}`, fresh: true };
      const expected = await sqlite.search(request, paging);
      const actual = await postgres.search(request, paging);
      assert.deepEqual(comparable(actual), comparable(expected));
      if (c.groups?.[0] !== 2) assert.ok(expected.total > 0, 'the case finds something');
      for (const field of c.mayBeEmpty ? [] : c.facets ?? []) assert.ok(expected.facets[field]!.length > 0, `facet ${field} has entries`);
    });
  }
});
