/** The lexer's value mode: after `field:` one value is read with `-`, keywords and colons as plain text. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tokenize } from './lexer.js';

const shape = (input: string) => tokenize(input).map((t) => ('name' in t ? `field:${t.name}` : 'value' in t ? `${t.type}:${t.value}` : t.type));

describe('tokenize', () => {
  it('reads one value after a field, even after spaces, and operators elsewhere', () => {
    assert.deepEqual(shape('-start: -24h AND(cmdline:or OR x:y)'),
      ['minus', 'field:start', 'word:-24h', 'and', 'lparen', 'field:cmdline', 'word:or', 'or', 'word:x:y', 'rparen', 'eof']);
  });

  it('never takes a drive letter or a non-identifier for a field', () => {
    assert.deepEqual(shape('c:\\x 1a:b a-b:c'), ['word:c:\\x', 'word:1a:b', 'word:a-b:c', 'eof']);
  });

  it('ends a word at a quote or parenthesis, and a range at its bracket', () => {
    assert.deepEqual(shape('a"b c"d start:[1 TO 2]e'), ['word:a', 'phrase:b c', 'word:d', 'field:start', 'range', 'word:e', 'eof']);
  });
});
