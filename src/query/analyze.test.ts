/** The analyzer: per-field semantics, default fields, joins, options. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Match, Predicate } from './analysis.js';
import { analyze, type AnalyzeOptions } from './analyze.js';
import { ANALYZED } from './analyze.cases.js';
import type { QueryError } from './errors.js';
import { parseQuery } from './parser.js';
import { bigIntToIpv6, intToIpv4 } from './values/ip.js';

const now = Date.UTC(2024, 4, 1, 12);
const run = (query: string, options: Partial<AnalyzeOptions> = {}) =>
  analyze(parseQuery(query), { index: 'process', now, ...options }).predicate;

function describeMatch(match: Match): string {
  const time = (ms: number | null) => (ms === null ? '*' : new Date(ms).toISOString());
  switch (match.kind) {
    case 'exact': case 'prefix': case 'subpath': return `${match.kind} ${match.value}`;
    case 'wildcard': case 'subpath_wildcard': return `${match.kind} ${match.pattern}`;
    case 'tokens': return `tokens${match.wildcard ? '*' : ''} ${match.tokens.join(' ')}`;
    case 'domain': return `domain ${match.labels.join('.')} before=${match.before} after=${match.after}`;
    case 'number_range': case 'long_range': return `range ${match.min ?? '*'}..${match.max ?? '*'}`;
    case 'time_range': return `time ${time(match.from)}..${time(match.to)}`;
    case 'ipv4_range': return `ipv4 ${intToIpv4(match.first)}-${intToIpv4(match.last)}`;
    case 'ipv6_range': return `ipv6 ${bigIntToIpv6(match.first)}-${bigIntToIpv6(match.last)}`;
    case 'bool': return `bool ${match.value}`;
    case 'exists': return 'exists';
  }
}

function describePredicate(p: Predicate): string {
  switch (p.op) {
    case 'all': case 'none': return p.op;
    case 'and': case 'or': return `${p.op}(${p.children.map(describePredicate).join('; ')})`;
    case 'not': return `not(${describePredicate(p.child)})`;
    case 'field': return `${p.field}${p.join ? `@${p.join}` : ''} ${describeMatch(p.match)}`;
  }
}

describe('analyze golden cases', () => {
  for (const [query, expected, index = 'process'] of ANALYZED) {
    it(`${index}: ${query}`, () => {
      assert.equal(describePredicate(run(query, { index })), expected);
    });
  }
});

describe('analyze', () => {
  it('says where each field is found and which dynamic family it belongs to', () => {
    assert.deepEqual(run('watchlist_12:*'), {
      op: 'field', field: 'watchlist_12', type: 'datetime', source: 'process',
      dynamic: { family: 'watchlist', key: '12' }, match: { kind: 'exists' }, span: { start: 13, end: 14 },
    });
    const joined = run('digsig_result_parent:Unsigned');
    assert.ok(joined.op === 'field' && joined.source === 'binary' && joined.type === 'enum');
    const event = run('filemod:x.exe');
    assert.ok(event.op === 'field' && event.source === 'event');
  });

  it('searches a bare term in the default fields whose type can hold it', () => {
    const fields = (query: string, index: 'process' | 'binary' = 'process') => {
      const p = run(query, { index });
      return (p.op === 'or' ? p.children : [p]).map((c) => (c.op === 'field' ? c.field : c.op));
    };
    const name = fields('svchost.exe');
    for (const f of ['process_name', 'parent_name', 'childproc_name', 'path', 'cmdline', 'filemod', 'modload', 'regmod', 'username', 'hostname', 'group', 'domain']) {
      assert.ok(name.includes(f), `${f} in ${name.join(',')}`);
    }
    assert.ok(!name.includes('md5') && !name.includes('crossproc_type') && !name.includes('company_name'));
    const hash = fields('5a18f00ab9330ac7539675f3f326cf11');
    assert.ok(hash.includes('md5') && hash.includes('blocked_md5'));
    assert.ok(!hash.includes('process_md5') && !hash.includes('parent_md5'), 'md5 already covers them');
    assert.ok(fields('processopen').includes('crossproc_type'));
    const binary = fields('microsoft', 'binary');
    assert.ok(binary.includes('company_name') && binary.includes('observed_filename') && !binary.includes('process_name'));
    assert.ok(fields('"Invalid Chain"', 'binary').includes('digsig_result'));
    assert.deepEqual(fields('"a b\\c"', 'binary').includes('md5'), false);
  });

  it('refuses leading wildcards when the server does, except where a path needs none', () => {
    const reject = { leadingWildcards: 'reject' } as const;
    for (const [query, position] of [['process_name:*.exe', 13], ['cmdline:*mimikatz', 8], ['x *foo', 2], ['path:?:\\x', 5]] as const) {
      assert.throws(() => run(query, reject), (e: QueryError) => e.code === 'leading_wildcard' && e.position === position, query);
      assert.doesNotThrow(() => run(query));
    }
    assert.doesNotThrow(() => run('filemod:*/system32/ntdll.dll', reject));
    assert.doesNotThrow(() => run('process_name:svc*', reject));
  });

  it('takes now as a Date too', () => {
    assert.equal(describePredicate(analyze(parseQuery('start:-1h'), { index: 'process', now: new Date(now) }).predicate),
      'start time 2024-05-01T11:00:00.000Z..*');
  });
});
