/** Text tokens (reference §5.2) and wildcard patterns. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalGlob, matchesGlob, prefixOf } from './glob.js';
import { textQueryTokens, textTokens } from './text.js';

describe('text tokens', () => {
  it('splits on whitespace and punctuation, lower-cased', () => {
    assert.deepEqual(textTokens('Microsoft Visual Studio 2010'), ['microsoft', 'visual', 'studio', '2010']);
    assert.deepEqual(textTokens('© Microsoft Corporation. All rights reserved.'), ['microsoft', 'corporation', 'all', 'rights', 'reserved']);
    assert.deepEqual(textTokens('Straße_Ünïcode'), ['straße', 'ünïcode']);
  });

  it('keeps wildcards in query tokens only when asked', () => {
    assert.deepEqual(textQueryTokens('Visual St*', true), ['visual', 'st*']);
    assert.deepEqual(textQueryTokens('Visual St*', false), ['visual', 'st']);
  });
});

describe('glob', () => {
  it('matches * and ? over whole values, everything else literally', () => {
    assert.ok(matchesGlob('win32.exe', 'win*.exe'));
    assert.ok(matchesGlob('a.b', 'a?b'));
    assert.ok(!matchesGlob('aXb.exe', 'a.b*'));
    assert.ok(matchesGlob('c:\\x\\(y)', 'c:\\*\\(y)'));
    assert.ok(matchesGlob('win-test-01', 'win-*'), 'a hyphen is an ordinary character');
    assert.equal(prefixOf('abc*'), 'abc');
    assert.equal(prefixOf('a*c'), undefined);
    assert.equal(canonicalGlob('a***b**'), 'a*b*');
  });
});
