/**
 * The SQLite compiler: golden cases and values only as parameters. That the SQL runs on the real
 * schema is checked by process-search.sqlite.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { analyzeParams } from '../params.js';
import { compileBinaryCondition, compileProcessCondition } from './sqlite.js';
import { COMPILED } from './sqlite.golden.js';
import { inlineParams } from './sqlite.test-support.js';

const now = Date.UTC(2024, 4, 1, 12);

function compile(q: string, index: 'process' | 'binary' = 'process') {
  const { predicate } = analyzeParams({ q }, { index, now });
  return index === 'binary' ? compileBinaryCondition(predicate) : compileProcessCondition(predicate);
}

describe('SQLite compilation golden cases', () => {
  for (const [query, expected, index] of COMPILED) {
    it(`${index ?? 'process'}: ${query}`, () => assert.equal(inlineParams(compile(query, index)), expected));
  }

  it('says whether a condition reads segments, so counts can go per process otherwise', () => {
    assert.equal(compile('process_name:a.exe hostname:web*').readsSegments, false);
    assert.equal(compile('process_name:a.exe domain:example.com').readsSegments, true);
    assert.equal(compile('netconn_count:[1 TO *]').readsSegments, true);
  });

  it('names the terms when the whole condition is one event field, so counts can read the postings alone', () => {
    assert.equal(inlineParams(compile('domain:.ru').postingTerms!), "SELECT id FROM event_terms WHERE field = 'domain' AND value GLOB '*.ru'");
    for (const q of ['-domain:.ru', 'domain:.ru process_name:a.exe', 'process_name:a.exe', 'md5:5A18F00AB9330AC7539675F3F326CF11']) {
      assert.equal(compile(q).postingTerms, undefined, q);
    }
  });

  it('looks each segment up in the postings when asked to probe (the detection matcher checks few segments)', () => {
    const { predicate } = analyzeParams({ q: 'domain:evil.com username:bob' }, { index: 'process', now });
    assert.equal(inlineParams(compileProcessCondition(predicate, { probe: true })),
      "(EXISTS (SELECT 1 FROM event_postings WHERE term_id IN (SELECT id FROM event_terms WHERE field = 'domain' AND (value = 'evil.com' OR value GLOB '*.evil.com')) AND segment_row = s.id) AND "
      + "p.username IN (WITH RECURSIVE d(v) AS (SELECT min(username) FROM processes UNION ALL SELECT (SELECT min(username) FROM processes WHERE username > d.v) FROM d WHERE d.v IS NOT NULL) SELECT v FROM d WHERE v IS NOT NULL AND vigil_keyword(v, 'bob')))");
  });

  it('nests long chains of AND and OR in balanced halves, as SQLite refuses expressions over 1,000 deep', () => {
    const terms = Array.from({ length: 2_000 }, (_, i) => `process_name:t${i}`);
    for (const operator of [' ', ' OR ']) {
      const compiled = compile(terms.join(operator));
      assert.equal(compiled.params.length, 2_000);
      // SQLite's tree deepens by one for each operator of a flat chain and each level of parentheses.
      assert.deepEqual(expressionShape(compiled.sql), { longestChain: 7, parentheses: 9 });
    }
    assert.equal(inlineParams(compile('process_name:a process_name:b process_name:c')),
      "(p.process_name = 'a' AND p.process_name = 'b' AND p.process_name = 'c')", 'a few terms stay one flat chain');
  });

  it('limits where-seen binary fields to the observations of the given groups', () => {
    const { predicate } = analyzeParams({ q: 'hostname:web-01' }, { index: 'binary', now });
    assert.match(inlineParams(compileBinaryCondition(predicate, { observedInGroups: [2, 3] })),
      /WHERE o\.md5 = b\.md5 AND o\.sensor_id IN \(SELECT id FROM sensors WHERE group_id IN \(2, 3\)\) AND vigil_keyword/u);
  });
});

describe('user values reach SQL only as parameters', () => {
  const word = fc.string({ minLength: 3, maxLength: 12 }).filter((v) => !/["\\\s*?]/u.test(v));
  for (const field of ['process_name', 'username', 'hostname', 'cmdline', 'filemod', 'domain', 'childproc_name', 'ja3', 'ja3s', 'company_name']) {
    it(`${field}: no value appears in the SQL text`, () => {
      const index = field === 'company_name' ? 'binary' : 'process';
      const reference = compile(`${field}:"abc"`, index).sql.toLowerCase();
      fc.assert(fc.property(word, (value) => {
        fc.pre(!reference.includes(value.toLowerCase()));
        let sql: string;
        try {
          sql = compile(`${field}:"${value}"`, index).sql;
        } catch {
          return true; // a value the field cannot hold is a 400, not SQL
        }
        return !sql.toLowerCase().includes(value.toLowerCase());
      }));
    });
  }
});

/** The longest run of AND / OR at one level of parentheses, and the deepest level. */
function expressionShape(sql: string): { longestChain: number; parentheses: number } {
  const chains = [0];
  let longestChain = 0;
  let parentheses = 0;
  for (const [token] of sql.matchAll(/\(|\)| AND | OR /gu)) {
    if (token === '(') chains.push(0);
    else if (token === ')') chains.pop();
    else longestChain = Math.max(longestChain, ++chains[chains.length - 1]!);
    parentheses = Math.max(parentheses, chains.length - 1);
  }
  return { longestChain, parentheses };
}
