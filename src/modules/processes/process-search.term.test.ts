/**
 * A search that is one event term counts from term_segment_counts and walks its newest page
 * (process-search.term.sqlite.ts): on simulated endpoints uploading batches of random sizes, each
 * term's kept count equals a full recount of its postings after every batch, and every such
 * search answers the total and the pages a full read of the postings gives, in every sort,
 * whether the walk finds the page or gives up for the sorting plan.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { registerSensor, uploadEvents } from '../../../test/support/sensors.js';
import { SQLITE_FILE } from '../../db/open.js';
import { compileProcessCondition } from '../../query/compile/sqlite.js';
import { analyzeParams } from '../../query/params.js';
import { Endpoint } from '../../sensor/endpoint.js';
import { MAX_COLLECTED, MAX_POSTED } from './process-search.once.sqlite.js';
import { run, setup } from './process-search.sqlite.js';
import { countedTerm } from './process-search.term.sqlite.js';
import type { CompiledProcessSearch, SortKey } from './process-search.plan.js';

const NOW = Date.parse('2026-11-21T00:00:00Z');
const SORTS: readonly [SortKey, boolean][] = [['last_update', true], ['last_update', false], ['last_server_update', true], ['start', true]];

describe('searches for one event term', () => {
  let test: TestApp;
  let connection: Database.Database;
  const recounts: boolean[] = [];

  before(async () => {
    test = await startTestApp({ segmentMaxEvents: 5 });
    const hosts = await Promise.all([0, 1, 2].map(async (index) => {
      const endpoint = new Endpoint({ seed: 'term-counts', index, startMs: Date.parse('2026-11-20T10:00:00Z') });
      return { endpoint, sensor: await registerSensor(test, endpoint.facts), sequence: 0 };
    }));
    connection = new Database(join(test.config.dataDir, SQLITE_FILE), { readonly: true });
    setup(connection);
    const kept = connection.prepare('SELECT term_id, segments FROM term_segment_counts ORDER BY 1').raw();
    const recount = connection.prepare('SELECT term_id, count(*) FROM event_postings GROUP BY 1 ORDER BY 1').raw();
    const batches = fc.sample(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 1, max: 120 })), { seed: 22, numRuns: 24 });
    for (const [host, size] of batches) {
      const target = hosts[host]!;
      const response = await uploadEvents(test, target.sensor, ++target.sequence, target.endpoint.take(size));
      assert.equal(response.statusCode, 200);
      recounts.push(JSON.stringify(kept.all()) === JSON.stringify(recount.all()));
    }
  });
  after(async () => {
    connection.close();
    await test.close();
  });

  it('keeps each term\'s count of segments equal to its postings after every batch', () => {
    assert.equal(recounts.length, 24);
    assert.deepEqual(recounts.filter((same) => !same), []);
  });

  function request(q: string, sort: SortKey, descending: boolean, start: number, rows: number, termWalk?: number): CompiledProcessSearch {
    return {
      condition: compileProcessCondition(analyzeParams({ q }, { index: 'process', now: NOW }).predicate),
      visibleGroups: null, sort: { key: sort, descending }, start, rows, grouped: false, facets: [], nowMs: NOW,
      onePassCaps: { collected: MAX_COLLECTED, posted: MAX_POSTED, termWalk },
    };
  }

  /** The total and every page of 7, as a client pages. */
  function pages(q: string, sort: SortKey, descending: boolean, termWalk?: number): { total: number; ids: number[] } {
    const first = run(connection, request(q, sort, descending, 0, 7, termWalk)).result;
    const ids = first.rows.map((row) => row.segment_row);
    for (let start = 7; start < first.total; start += 7) ids.push(...run(connection, request(q, sort, descending, start, 7, termWalk)).result.rows.map((row) => row.segment_row));
    return { total: first.total, ids };
  }

  /** The same from a full read of the term's postings, sorted in SQL by the search's total order. */
  function reference(termsSql: string, params: readonly unknown[], sort: SortKey, descending: boolean): { total: number; ids: number[] } {
    const dir = descending ? 'DESC' : 'ASC';
    const order = sort === 'start' ? `p.start_ms ${dir}, p.id ${dir}, s.segment_id ${dir}` : `s.${sort}_ms ${dir}, s.id ${dir}`;
    const ids = connection.prepare(
      `SELECT s.id FROM segments s JOIN processes p ON p.id = s.process_id
       WHERE s.id IN (SELECT segment_row FROM event_postings WHERE term_id IN (${termsSql})) ORDER BY ${order}`,
    ).pluck().all(...params) as number[];
    return { total: ids.length, ids };
  }

  it('answers the totals and pages of a full read of the postings, whether the walk finds the page or not', () => {
    // Terms of several fields and sizes, as queries naming them exactly.
    const terms = connection.prepare(
      `SELECT t.field, t.value, c.segments FROM event_terms t JOIN term_segment_counts c ON c.term_id = t.id
       WHERE t.field IN ('modload', 'filemod', 'domain', 'regmod') AND t.value NOT GLOB '*[^a-z0-9.\\:_-]*'
       ORDER BY c.segments DESC, t.id`,
    ).raw().all() as [string, string, number][];
    const chosen = [...terms.slice(0, 6), ...terms.filter((_, i) => i % 40 === 7).slice(0, 6)];
    assert.ok(chosen[0]![2] > 14, 'the largest term spans several pages');
    let single = 0;
    for (const [field, value] of chosen) {
      const q = `${field}:${value}`;
      const { postingTerms } = request(q, 'last_update', true, 0, 7).condition;
      assert.ok(postingTerms, q);
      if (countedTerm(connection, postingTerms.sql, postingTerms.params)?.term) single++;
      for (const [sort, descending] of SORTS) {
        const expected = reference(postingTerms.sql, postingTerms.params, sort, descending);
        for (const walk of [undefined, 1, 20]) assert.deepEqual(pages(q, sort, descending, walk), expected, `${q} / ${sort} ${descending} / walk ${walk}`);
      }
    }
    assert.ok(single >= 6, `${single} of the queries are one term`);
  });

  it('counts nothing for a term no event has', () => {
    assert.deepEqual(pages('domain:never-seen.example', 'last_update', true), { total: 0, ids: [] });
  });
});
