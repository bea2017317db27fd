/**
 * The one-pass plans (process-search.once.sqlite.ts) answer exactly what the count-then-page plans do:
 * the same total and the same pages, on either side of their caps, with a partition unmounted,
 * for a caller limited to one group, grouped or not, in every kind of sort.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { as, startTestApp, type TestApp } from '../../../test/support/app.js';
import { registerSensor, uploadEvents } from '../../../test/support/sensors.js';
import { SQLITE_FILE } from '../../db/open.js';
import { compileProcessCondition } from '../../query/compile/sqlite.js';
import { analyzeParams } from '../../query/params.js';
import { Endpoint } from '../../sensor/endpoint.js';
import { run, setup } from './process-search.sqlite.js';
import type { CompiledProcessSearch, SortKey } from './process-search.plan.js';

const BASE = '/api/v1/storage/events';
const NOW = Date.parse('2026-11-21T00:00:00Z');

describe('one-pass search plans', () => {
  let test: TestApp;
  let connection: Database.Database;
  let servers: number;

  before(async () => {
    test = await startTestApp({ segmentMaxEvents: 5 });
    const group = await test.app.inject({ method: 'POST', url: '/api/group', headers: as(test.adminToken), payload: { name: 'Servers', site_id: 1 } });
    servers = group.json().id as number;
    const hosts = await Promise.all([1, servers].map(async (groupId, index) => {
      const endpoint = new Endpoint({ seed: 'one-pass', index, startMs: Date.parse('2026-11-20T10:00:00Z') });
      return { endpoint, sensor: await registerSensor(test, endpoint.facts, groupId) };
    }));
    let sequence = 0;
    const uploadAll = async () => {
      sequence++;
      for (const { endpoint, sensor } of hosts) assert.equal((await uploadEvents(test, sensor, sequence, endpoint.take(150))).statusCode, 200);
    };
    await uploadAll();
    await uploadAll();
    // The first partition's segments become hidden; the later ones stay searchable.
    const post = (url: string) => test.app.inject({ method: 'POST', url, headers: { ...as(test.adminToken), 'content-type': 'application/json' }, payload: 'null' });
    assert.equal((await post(`${BASE}/new_partition`)).statusCode, 200);
    const list = (await test.app.inject({ url: `${BASE}/partition`, headers: as(test.adminToken) })).json() as Record<string, unknown>;
    const warm = Object.keys(list).find((name) => name !== 'writer')!;
    assert.equal((await post(`${BASE}/${warm}/unmount`)).statusCode, 200);
    await uploadAll();
    await uploadAll();
    connection = new Database(join(test.config.dataDir, SQLITE_FILE), { readonly: true });
    setup(connection);
  });
  after(async () => {
    connection.close();
    await test.close();
  });

  function search(q: string, options: { sort: SortKey; descending: boolean; grouped: boolean; groups: number[] | null; caps: number }, start: number, rows: number) {
    const request: CompiledProcessSearch = {
      condition: compileProcessCondition(analyzeParams({ q }, { index: 'process', now: NOW }).predicate),
      visibleGroups: options.groups, sort: { key: options.sort, descending: options.descending }, start, rows, grouped: options.grouped,
      facets: [], nowMs: NOW, onePassCaps: { collected: options.caps, posted: options.caps },
    };
    const { result } = run(connection, request);
    return { total: result.total, ids: result.rows.map((row) => row.segment_row) };
  }

  /** Every page of 7 in turn, as a client pages. */
  function pages(q: string, options: Parameters<typeof search>[1]): { total: number; ids: number[] } {
    const first = search(q, options, 0, 7);
    const ids = [...first.ids];
    for (let start = 7; start < first.total; start += 7) ids.push(...search(q, options, start, 7).ids);
    return { total: first.total, ids };
  }

  it('gives the count-then-page plans\' totals and pages on either side of the caps', () => {
    const value = (sql: string) => connection.prepare(sql).pluck().get() as string | number;
    const name = value('SELECT process_name FROM processes GROUP BY 1 ORDER BY count(*) DESC LIMIT 1');
    const since = new Date(value('SELECT last_update_ms FROM segments ORDER BY last_update_ms LIMIT 1 OFFSET (SELECT count(*) / 3 FROM segments)') as number).toISOString();
    assert.ok(value("SELECT count(*) FROM event_partitions WHERE state = 'cold'") === 1, 'a partition is unmounted');
    const queries = [`process_name:${name} last_update:[${since} TO *]`, 'netconn_count:[1 TO *]', 'domain:com', 'modload:*.dll'];
    // domain:com names several terms, so a segment may be posted more than once.
    assert.ok((value("SELECT count(*) FROM event_terms WHERE field = 'domain' AND value GLOB '*.com'") as number) > 1);
    let crossed = 0;
    for (const q of queries) {
      for (const [sort, descending] of [['last_update', true], ['last_update', false], ['childproc_count', true], ['segment_id', false], ['start', true]] as const) {
        for (const grouped of [false, true]) {
          for (const groups of [null, [1], [servers]]) {
            const options = { sort, descending, grouped, groups, caps: 0 };
            const reference = pages(q, options);
            const label = `${q} / ${sort} ${descending} / grouped ${grouped} / ${JSON.stringify(groups)}`;
            if (groups === null && !grouped) assert.ok(reference.total > 7, `${label}: several pages`);
            assert.equal(new Set(reference.ids).size, reference.total, label);
            for (const caps of [reference.total - 1, reference.total, reference.total + 1, 1_000_000]) {
              assert.deepEqual(pages(q, { ...options, caps }), reference, `${label} / cap ${caps}`);
            }
            crossed++;
          }
        }
      }
    }
    assert.equal(crossed, queries.length * 5 * 2 * 3);
  });

  it('leaves the unmounted partition\'s segments out of the posted and collected matches', () => {
    const hidden = connection.prepare('SELECT count(*) FROM segments s WHERE netconn_count > 0 AND s.id < (SELECT max(first_row) FROM event_partitions)').pluck().get() as number;
    const all = connection.prepare('SELECT count(*) FROM segments WHERE netconn_count > 0').pluck().get() as number;
    assert.ok(hidden > 0);
    const options = { sort: 'last_update' as const, descending: true, grouped: false, groups: null, caps: 1_000_000 };
    assert.equal(search('netconn_count:[1 TO *]', options, 0, 7).total, all - hidden);
  });
});
