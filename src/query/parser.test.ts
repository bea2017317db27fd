/** The parser against its golden table and its table of rejected queries; positions and limits. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withoutSpans } from './ast.js';
import { analyze } from './analyze.js';
import { QueryError } from './errors.js';
import { GOLDEN_PARSES } from './parser.golden.js';
import { parseFieldQuery, parseQuery } from './parser.js';
import { REJECTED } from './rejected.cases.js';

describe('parseQuery golden cases', () => {
  for (const [query, expected] of GOLDEN_PARSES) {
    it(query || '(empty)', () => {
      assert.deepEqual(withoutSpans(parseQuery(query)), expected);
    });
  }
});

describe('rejected queries', () => {
  const now = Date.UTC(2024, 4, 1);
  for (const rejected of REJECTED) {
    it(`${rejected.query.slice(0, 60)} → ${rejected.code} at ${rejected.position}`, () => {
      assert.throws(
        () => analyze(parseQuery(rejected.query), { index: rejected.index ?? 'process', now }),
        (error) => {
          assert.ok(error instanceof QueryError, String(error));
          assert.equal(error.code, rejected.code, error.message);
          assert.equal(error.position, rejected.position, error.message);
          assert.match(error.message, rejected.message);
          assert.match(error.message, new RegExp(`at position ${rejected.position}\\b`));
          return true;
        },
      );
    });
  }
});

describe('positions', () => {
  it('records where each value and field sits', () => {
    const tree = parseQuery('a -process_name: "x y" start:[1 TO 2]');
    assert.equal(tree.kind, 'and');
    const [bare, negated, range] = tree.kind === 'and' ? tree.children : [];
    assert.deepEqual(bare?.span, { start: 0, end: 1 });
    assert.deepEqual(negated?.span, { start: 2, end: 22 });
    const named = negated?.kind === 'not' ? negated.child : undefined;
    assert.deepEqual(named?.kind === 'term' && [named.fieldSpan, named.span], [{ start: 3, end: 15 }, { start: 17, end: 22 }]);
    assert.deepEqual(range?.kind === 'range' && [range.fieldSpan, range.span, range.lower?.span], [
      { start: 23, end: 28 }, { start: 29, end: 37 }, { start: 30, end: 31 },
    ]);
  });

  it('takes its limits from the caller', () => {
    assert.throws(() => parseQuery('abcdef', { maxLength: 5 }), /longer than 5 characters at position 5/);
    assert.throws(() => parseQuery('((a))', { maxDepth: 1 }), /nested deeper than 1 levels at position 1/);
    assert.doesNotThrow(() => parseQuery('((a))', { maxDepth: 2 }));
  });

  it('names the parameter an error came from', () => {
    assert.throws(() => parseQuery('a)', { source: 'q' }), (e: QueryError) => e.message === 'Unbalanced ")" without a matching "(" at position 1');
    assert.throws(() => parseFieldQuery('group', '(a', { source: 'cb.q.group' }),
      (e: QueryError) => e.source === 'cb.q.group' && /at position 0 of cb\.q\.group/.test(e.message));
  });
});

describe('parseFieldQuery', () => {
  it('reads a cb.q value as the field group field:(value)', () => {
    assert.deepEqual(withoutSpans(parseFieldQuery('Group', '("Default Group" OR servers)')),
      withoutSpans(parseQuery('group:("Default Group" OR servers)')));
    assert.deepEqual(withoutSpans(parseFieldQuery('filemod', 'c:\\windows\\system32\\*')),
      { kind: 'term', field: 'filemod', value: 'c:\\windows\\system32\\*', quoted: false });
    assert.deepEqual(withoutSpans(parseFieldQuery('md5', '*')), { kind: 'exists', field: 'md5' });
  });
});
