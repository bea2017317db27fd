/**
 * Binary search on PostgreSQL answers as the embedded store's does: the same binaries recorded in
 * both databases, the same requests (query, sort, paging, visibility, facets) on the SQLite read
 * pool and on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bothStores, FLEET_T0, type BothStores } from '../../../test/support/both-stores.js';
import { SqliteReadPool } from '../../db/dialects/sqlite-read-pool.js';
import { analyzeParams } from '../../query/params.js';
import { PooledBinarySearchStore, READ_HANDLERS } from '../../wiring/sqlite-read-stores.js';
import { SqlBinariesStore } from './binaries.store.js';
import { BINARY_FACET_NAMES, type BinarySearchRequest, type BinarySearchResult, type BinarySortKey } from './binary-search.plan.js';
import { postgresMetadataExpr } from '../../query/compile/postgres-binary.js';
import { PostgresBinarySearchStore } from './binary-search.postgres.js';
import type { BinaryMetadata } from './binary-upload.schemas.js';

const md5 = (digit: string) => digit.repeat(32);
const BINARIES: [BinaryMetadata, number, number][] = [
  [{ md5: md5('a'), size: 100, observed_filename: 'c:\\windows\\notepad.exe', company_name: 'Microsoft Corporation', product_name: 'Notepad',
    is_64bit: true, digsig: { result: 'Signed', publisher: 'Microsoft' } } as BinaryMetadata, 1, FLEET_T0],
  [{ md5: md5('b'), size: 2_000, observed_filename: 'c:\\tools\\putty.exe', company_name: 'Simon Tatham', product_name: 'PuTTY', is_64bit: false },
    2, FLEET_T0 + 3_600_000],
  [{ md5: md5('c'), size: 30, observed_filename: 'c:\\temp\\x.dll', is_64bit: true }, 1, FLEET_T0 - 40 * 86_400_000],
  [{ md5: md5('c'), size: 30, observed_filename: 'c:\\other\\x.dll', is_64bit: true }, 2, FLEET_T0],
];

interface Case { q: string; sort?: BinarySortKey; descending?: boolean; start?: number; rows?: number; facets?: string[]; groups?: number[] | null }

const CASES: Case[] = [
  { q: '', facets: ['company_name_facet', 'digsig_result', 'observed_filename_facet', 'server_added_timestamp', 'host_count', 'is_64bit'] },
  { q: 'company_name:microsoft', sort: 'company_name', descending: false },
  { q: 'orig_mod_len:[50 TO *]', sort: 'orig_mod_len', rows: 1, start: 1 },
  { q: 'observed_filename:x.dll', facets: ['hostname', 'group', 'os_type'] },
  { q: 'is_64bit:true', sort: 'md5', groups: [1], facets: ['host_count', 'observed_filename'] },
  { q: '', groups: [3] },
  { q: '', facets: [...BINARY_FACET_NAMES] },
];

const comparable = (result: BinarySearchResult) => ({
  total: result.total,
  rows: result.rows.map((r) => [r.md5, r.size, JSON.parse(r.metadata) as unknown, r.first_seen_ms, r.observations]),
  facets: result.facets,
});

describe('binary search on PostgreSQL answers as on SQLite', () => {
  let stores: BothStores;
  let pool: SqliteReadPool;
  let sqlite: PooledBinarySearchStore;
  let postgres: PostgresBinarySearchStore;
  before(async () => {
    stores = await bothStores();
    for (const db of [stores.sqlite, stores.postgres]) {
      for (const [metadata, sensorId, nowMs] of BINARIES) await new SqlBinariesStore(db).record(metadata, undefined, sensorId, nowMs);
    }
    pool = new SqliteReadPool(stores.sqlite.connection.name, { workers: 1, handlers: { [READ_HANDLERS.binarySearch.name]: READ_HANDLERS.binarySearch.url } });
    sqlite = new PooledBinarySearchStore(pool);
    postgres = new PostgresBinarySearchStore(stores.postgres);
  });
  after(async () => {
    await pool.close();
    await stores.close();
  });

  for (const c of CASES) {
    it(`${c.q || '(all)'}${c.sort ? ` by ${c.sort}` : ''}${c.groups ? ` in groups ${c.groups}` : ''}`, async () => {
      const now = FLEET_T0 + 86_400_000;
      const { predicate } = analyzeParams({ q: c.q }, { index: 'binary', now });
      const request: BinarySearchRequest = {
        predicate, visibleGroups: c.groups ?? null, sort: { key: c.sort ?? 'server_added_timestamp', descending: c.descending ?? true },
        start: c.start ?? 0, rows: c.rows ?? 10, facets: c.facets ?? [], nowMs: now,
      };
      const expected = comparable(await sqlite.search(request, { key: c.q, fresh: true }));
      assert.deepEqual(comparable(await postgres.search(request, { key: c.q, fresh: true })), expected);
      if (c.q === '') assert.ok(expected.total > 0 || c.groups !== undefined, 'the case finds something to compare');
      for (const field of ['product_name_facet', 'company_name_facet', 'digsig_publisher_facet', 'is_64bit', 'product_name']) {
        if (c.facets?.includes(field)) assert.ok(expected.facets[field]!.length > 0, `${field} has entries to compare`);
      }
    });
  }

  it('reads the plan\'s SQLite JSON expressions through jsonb, booleans as their text', () => {
    assert.equal(postgresMetadataExpr("json_extract(b.metadata, '$.digsig.result')"), "(b.metadata::jsonb #>> '{digsig,result}')");
    assert.equal(postgresMetadataExpr("CASE json_extract(b.metadata, '$.is_64bit') WHEN 1 THEN 'true' WHEN 0 THEN 'false' END"),
      "(b.metadata::jsonb #>> '{is_64bit}')");
  });
});
