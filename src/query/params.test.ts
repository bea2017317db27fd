/** q plus cb.q.<field> and cb.fq.<field> parameters as one query. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConditionBudget } from './budget.js';
import type { QueryError } from './errors.js';
import { analyzeParams, queryFromParams } from './params.js';
import { serialize } from './serialize.js';

const now = Date.UTC(2024, 4, 1);

describe('search parameters', () => {
  it('ANDs cb.q terms with q, as the watchlist example in the reference reads', () => {
    const params = { 'cb.urlver': '1', q: '-path:c:\\windows\\*', 'cb.q.filemod': 'c:\\windows\\system32\\*', rows: '10', sort: 'start desc' };
    assert.equal(serialize(queryFromParams(params)), '-path:c:\\windows\\* filemod:c:\\windows\\system32\\*');
  });

  it('ORs repeats of one parameter and ANDs distinct ones', () => {
    const params = { 'cb.fq.feed_name': ['a', 'b'], 'cb.fq.is_ignored': 'false', q: '' };
    assert.equal(serialize(queryFromParams(params)), '(feed_name:a OR feed_name:b) is_ignored:false');
  });

  it('ANDs the items of a q sent as a list (legacy POST bodies)', () => {
    assert.equal(serialize(queryFromParams({ q: ['process_name:a', 'b OR c'] })), 'process_name:a (b OR c)');
  });

  it('reads a cb.q value as a field group and keeps an empty one neutral', () => {
    assert.equal(serialize(queryFromParams({ 'cb.q.group': '("Default Group" servers)' })), 'group:"Default Group" group:servers');
    assert.equal(serialize(queryFromParams({ q: 'a', 'cb.q.group': '' })), 'a');
    assert.equal(serialize(queryFromParams({})), '');
  });

  it('analyzes each parameter under its own name, so errors say where they are', () => {
    const analyzed = analyzeParams({ q: 'process_name:x', 'cb.q.hostname': ['a', 'b'] }, { index: 'process', now });
    assert.equal(analyzed.predicate.op, 'and');
    assert.throws(() => analyzeParams({ q: 'process_name:x', 'cb.q.md5': 'abc' }, { index: 'process', now }),
      (e: QueryError) => e.code === 'invalid_value' && /at position 0 of cb\.q\.md5$/.test(e.message));
    assert.throws(() => analyzeParams({ 'cb.q.no_such': 'x' }, { index: 'process', now }),
      (e: QueryError) => e.code === 'unknown_field' && e.source === 'cb.q.no_such');
    assert.throws(() => queryFromParams({ 'cb.q.': 'x' }), (e: QueryError) => e.source === 'cb.q.' && /names no field/.test(e.message));
    assert.throws(() => queryFromParams({ q: 'a (' }), (e: QueryError) => e.source === 'q' && e.position === 2);
  });

  it('applies the parse limits to every parameter', () => {
    assert.throws(() => queryFromParams({ 'cb.q.group': 'x'.repeat(20) }, { maxLength: 10 }), /longer than 10 characters at position 10 of cb\.q\.group/);
  });

  it('counts the conditions of every parameter against one budget', () => {
    const budget = () => new ConditionBudget(3);
    assert.doesNotThrow(() => analyzeParams({ q: 'process_name:a process_name:b', 'cb.q.hostname': 'c' }, { index: 'process', now, budget: budget() }));
    assert.throws(() => analyzeParams({ q: 'process_name:a process_name:b', 'cb.q.hostname': '(c d)' }, { index: 'process', now, budget: budget() }),
      (e: QueryError) => e.code === 'too_large' && /more than 3 conditions at position 3 of cb\.q\.hostname/.test(e.message));
  });
});
