/** serialize: canonical text that parses back to the same tree. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withoutSpans } from './ast.js';
import { GOLDEN_PARSES } from './parser.golden.js';
import { parseFieldQuery, parseQuery } from './parser.js';
import { serialize } from './serialize.js';

const CANONICAL: readonly (readonly [string, string])[] = [
  ['Process_Name:svchost.exe  and  -CMDLINE: dcsync', 'process_name:svchost.exe -cmdline:dcsync'],
  ['a OR b c', 'a OR (b c)'],
  ['(a b) OR NOT (c OR d)', '(a b) OR -(c OR d)'],
  ['--a', '-(-a)'],
  ['md5:(a b)', 'md5:a md5:b'],
  ['process_name:\u201Ccmd.exe\u201D', 'process_name:"cmd.exe"'],
  ['netconn_count:[ 1 to * ]process_name:x', 'netconn_count:[1 TO *] process_name:x'],
  ['path:c:\\program\\ files\\ \\(x86\\)\\windows', 'path:c:\\program\\ files\\ \\(x86\\)\\windows'],
  ['cmdline:\\\\test\\blah', 'cmdline:\\test\\blah'],
  ['path:c:\\temp\\', 'path:c:\\temp\\\\'],
  ['ab\\:cd', 'ab\\:cd'],
  ['c:\\windows', 'c:\\windows'],
  ['"say \\"hi\\""', '"say \\"hi\\""'],
  ['*', ''],
  ['a OR *:*', 'a OR *:*'],
];

describe('serialize', () => {
  for (const [query, canonical] of CANONICAL) {
    it(`${query} → ${canonical}`, () => {
      assert.equal(serialize(parseQuery(query)), canonical);
    });
  }

  describe('round trip: parse(serialize(parse(q))) = parse(q)', () => {
    const queries = [...GOLDEN_PARSES.map(([query]) => query), ...CANONICAL.map(([query]) => query)];
    for (const query of queries) {
      it(query || '(empty)', () => {
        const tree = parseQuery(query);
        assert.deepEqual(withoutSpans(parseQuery(serialize(tree))), withoutSpans(tree));
      });
    }
  });

  it('writes a cb.q parameter as the field terms it stands for', () => {
    assert.equal(serialize(parseFieldQuery('group', '"Default Group" OR servers')), 'group:"Default Group" OR group:servers');
  });
});
