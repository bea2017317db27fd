/** Domain label rules: the user guide's table (reference §5.6). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchesDomain, parseDomainQuery, type DomainQuery } from './domain.js';

const TABLE: readonly (readonly [string, boolean, boolean])[] = [
  // query, matches foo.com, matches foo.com.au
  ['com', true, true],
  ['.com', true, false],
  ['.com.', false, true],
  ['com.', false, false],
  ['foo.', true, true],
  ['foo.com', true, false],
];

const query = (text: string) => parseDomainQuery(text) as DomainQuery;

describe('domains', () => {
  for (const [text, foo, fooAu] of TABLE) {
    it(`domain:${text} → foo.com ${foo}, foo.com.au ${fooAu}`, () => {
      assert.equal(matchesDomain('foo.com', query(text)), foo);
      assert.equal(matchesDomain('foo.com.au', query(text)), fooAu);
    });
  }

  it('reads the example table: microsoft is *.microsoft, *.microsoft.* or microsoft.*; www. is www.*', () => {
    for (const domain of ['a.microsoft', 'a.microsoft.com', 'microsoft.com', 'MICROSOFT']) assert.ok(matchesDomain(domain, query('microsoft')), domain);
    assert.ok(!matchesDomain('microsofty.com', query('microsoft')));
    assert.ok(matchesDomain('www.example.com', query('www.')));
    assert.ok(!matchesDomain('a.www.example.com', query('www.')));
  });

  it('finds subdomains of a multi-label query', () => {
    assert.ok(matchesDomain('update.microsoft.com', query('microsoft.com')));
    assert.ok(!matchesDomain('microsoft.com.evil.ru', query('microsoft.com')));
  });

  it('refuses empty labels and characters no host name has', () => {
    assert.deepEqual(parseDomainQuery('a..b'), { invalid: 'A domain has no empty labels' });
    assert.ok('invalid' in parseDomainQuery('.'));
    assert.ok('invalid' in parseDomainQuery('a b.com'));
  });
});
