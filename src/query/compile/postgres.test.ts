/**
 * The PostgreSQL compiler: the golden cases (the same queries as SQLite's), each run on a real
 * migrated PostgreSQL so that every one is SQL PostgreSQL accepts; and the same searches over
 * the same ingested events answered alike by both stores (postgres.same-answers.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { freshMigratedPostgres } from '../../../test/support/postgres-migrated.js';
import type { PostgresDatabase } from '../../db/dialects/postgres.js';
import { analyzeParams } from '../params.js';
import { compilePostgresBinaryCondition, compilePostgresProcessCondition } from './postgres.js';
import { POSTGRES_COMPILED } from './postgres.golden.js';
import { COMPILED } from './sqlite.golden.js';
import { inlineParams } from './sqlite.test-support.js';

const now = Date.UTC(2024, 4, 1, 12);

function compile(q: string, index: 'process' | 'binary' = 'process') {
  const { predicate } = analyzeParams({ q }, { index, now });
  return index === 'binary' ? compilePostgresBinaryCondition(predicate) : compilePostgresProcessCondition(predicate);
}

const statement = (condition: string, index: 'process' | 'binary' = 'process') => (index === 'binary'
  ? `SELECT count(*) AS n FROM binaries b WHERE ${condition}`
  : `SELECT count(*) AS n FROM segments s JOIN processes p ON p.sensor_id = s.sensor_id AND p.id = s.process_id WHERE ${condition}`);

describe('PostgreSQL compilation golden cases', () => {
  let db: PostgresDatabase;
  before(async () => (db = await freshMigratedPostgres()));
  after(async () => db.close());

  it('has a case for every SQLite case, in the same order', () => {
    assert.deepEqual(POSTGRES_COMPILED.map(([q, , index]) => [q, index]), COMPILED.map(([q, , index]) => [q, index]));
  });

  for (const [query, expected, index] of POSTGRES_COMPILED) {
    it(`${index ?? 'process'}: ${query}`, async () => {
      const compiled = compile(query, index);
      assert.equal(inlineParams(compiled), expected);
      await db.all(statement(compiled.sql, index), compiled.params);
    });
  }

  it('says whether a condition reads segments, so counts can go per process otherwise', () => {
    assert.equal(compile('process_name:a.exe hostname:web*').readsSegments, false);
    assert.equal(compile('process_name:a.exe domain:example.com').readsSegments, true);
    assert.equal(compile('netconn_count:[1 TO *]').readsSegments, true);
  });

  it('names the term array when the whole condition is one event field', () => {
    assert.equal(inlineParams(compile('domain:.ru').postingTerms!), "ARRAY(SELECT field || ':' || value FROM event_terms WHERE field = 'domain' AND value LIKE '%.ru')");
    for (const q of ['-domain:.ru', 'domain:.ru process_name:a.exe', 'process_name:a.exe']) assert.equal(compile(q).postingTerms, undefined, q);
  });

  it('looks each segment up in its own term rows when asked to probe', async () => {
    const { predicate } = analyzeParams({ q: 'domain:evil.com' }, { index: 'process', now });
    const compiled = compilePostgresProcessCondition(predicate, { probe: true });
    assert.match(compiled.sql, /^EXISTS \(SELECT 1 FROM segment_terms t WHERE t\.sensor_id = s\.sensor_id AND t\.segment_row = s\.id AND t\.segment_id = s\.segment_id AND t\.terms && /u);
    await db.all(statement(compiled.sql), compiled.params);
  });

  it('runs a query of a thousand terms', async () => {
    const compiled = compile(Array.from({ length: 1_000 }, (_, i) => `process_name:t${i}`).join(' OR '));
    await db.all(statement(compiled.sql), compiled.params);
  });

  it('user values reach SQL only as parameters', () => {
    const word = fc.string({ minLength: 3, maxLength: 12 }).filter((v) => !/["\\\s*?]/u.test(v));
    for (const field of ['process_name', 'username', 'cmdline', 'filemod', 'domain', 'ja3s', 'company_name']) {
      const index = field === 'company_name' ? 'binary' : 'process';
      const reference = compile(`${field}:"abc"`, index).sql.toLowerCase();
      fc.assert(fc.property(word, (value) => {
        fc.pre(!reference.includes(value.toLowerCase()));
        try {
          return !compile(`${field}:"${value}"`, index).sql.toLowerCase().includes(value.toLowerCase());
        } catch {
          return true;
        }
      }), { numRuns: 50 });
    }
  });
});
