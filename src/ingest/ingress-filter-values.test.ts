/** The value syntax of ingress filters (reference admin §6.2), as a table. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidRequestError } from '../domain/errors.js';
import { compileValues, type ValueKind } from './ingress-filter-values.js';

/** [filter value, kind, reported value, matches] */
const CASES: [string, ValueKind, string, boolean][] = [
  // Globs: only on paths, matched in Unix form.
  ['**/notepad.exe', 'path', 'c:\\windows\\system32\\notepad.exe', true],
  ['**/notepad.exe', 'path', 'C:\\Windows\\System32\\NOTEPAD.EXE', true],
  ['**/notepad.exe', 'path', 'notepad.exe', true],
  ['**/notepad.exe', 'path', 'c:\\windows\\system32\\notepad.exe.bak', false],
  ['c:\\windows\\*\\notepad.exe', 'path', 'c:\\windows\\system32\\notepad.exe', true],
  ['c:\\windows\\*\\notepad.exe', 'path', 'c:\\windows\\a\\b\\notepad.exe', false],
  ['c:/windows/**/notepad.exe', 'path', 'c:\\windows\\notepad.exe', true],
  ['c:/windows/**', 'path', 'c:\\windows\\system32\\drivers\\x.sys', true],
  ['*.exe', 'path', 'c:\\a\\b.exe', false],
  ['/usr/bin/pyth?n3', 'path', '/usr/bin/python3', true],
  ['/usr/bin/pyth?n3', 'path', '/usr/bin/pyth/n3', false],
  // Everything but * and ? is literal, as Windows paths need.
  ['c:\\program files (x86)\\*\\updater.exe', 'path', 'C:\\Program Files (x86)\\Acme\\updater.exe', true],
  ['c:\\program files (x86)\\*\\updater.exe', 'path', 'C:\\Program Files x86\\Acme\\updater.exe', false],
  ['c:\\[build]+{1}\\*.exe', 'path', 'c:\\[build]+{1}\\a.exe', true],
  ['c:\\$recycle.bin\\*', 'path', 'c:\\$recyclexbin\\a', false],
  // Plain values are exact: paths in Unix form, MD5s and domains ignoring case, command lines as written.
  ['c:\\windows\\system32\\svchost.exe', 'path', 'C:\\WINDOWS\\System32\\svchost.exe', true],
  ['c:/windows/system32/svchost.exe', 'path', 'c:\\windows\\system32\\svchost.exe', true],
  ['c:\\windows\\system32\\svchost.exe', 'path', 'c:\\windows\\system32\\svchost.exe2', false],
  ['5A18F00AB9330AC7539675F3F326CF11', 'caseless', '5a18f00ab9330ac7539675f3f326cf11', true],
  ['5a18f00ab9330ac7539675f3f326cf11', 'caseless', '5a18f00ab9330ac7539675f3f326cf12', false],
  ['Example.COM', 'caseless', 'example.com', true],
  ['cmd.exe /c whoami', 'text', 'cmd.exe /c whoami', true],
  ['cmd.exe /c whoami', 'text', 'CMD.exe /c whoami', false],
  ['dir *.txt', 'text', 'dir *.txt', true],
  ['dir *.txt', 'text', 'dir a.txt', false],
  // rx| searches, case-sensitive; rxi| ignores case; a leading Java (?i) does too.
  ['rx|whoami', 'text', 'cmd.exe /c whoami', true],
  ['rx|^whoami', 'text', 'cmd.exe /c whoami', false],
  ['rx|WHOAMI', 'text', 'cmd.exe /c whoami', false],
  ['rxi|WHOAMI', 'text', 'cmd.exe /c whoami', true],
  ['rx|(?i)WHOAMI', 'text', 'cmd.exe /c whoami', true],
  ['rx|.*', 'caseless', '10.1.2.3', true],
  ['rx|^10\\.1\\.', 'caseless', '10.1.2.3', true],
  ['rx|^10\\.1\\.', 'caseless', '110.1.2.3', false],
  // A path regex sees the path as reported and with slashes.
  ['rx|\\\\System32\\\\', 'path', 'c:\\windows\\System32\\cmd.exe', true],
  ['rx|/System32/', 'path', 'c:\\windows\\System32\\cmd.exe', true],
  ['rx|/system32/', 'path', 'c:\\windows\\System32\\cmd.exe', false],
  ['rxi|/system32/cmd\\.exe$', 'path', 'c:\\windows\\System32\\CMD.exe', true],
];

describe('ingress filter values', () => {
  it('match as the reference describes', () => {
    for (const [value, kind, input, expected] of CASES) {
      const matcher = compileValues('field', [value], kind)!;
      assert.equal(matcher(input), expected, `${value} (${kind}) against ${input}`);
      // The same input twice in a row goes through the remembered Unix form.
      assert.equal(matcher(input), expected, `${value} (${kind}) against ${input}, again`);
    }
  });

  it('match when any value of the list does', () => {
    const matcher = compileValues('path_filters', ['**/a.exe', 'rx|b\\.exe$', 'c:\\c.exe'], 'path')!;
    assert.deepEqual(['c:\\x\\a.exe', 'c:\\x\\b.exe', 'C:\\C.EXE', 'c:\\x\\d.exe'].map(matcher), [true, true, true, false]);
  });

  it('compile no list to no matcher', () => {
    assert.equal(compileValues('md5_filters', [], 'caseless'), undefined);
  });

  it('reject an invalid regex naming the field and the index', () => {
    for (const prefix of ['rx|', 'rxi|']) {
      assert.throws(() => compileValues('cmdline_filters', ['ok', 'rx|fine', `${prefix}(unclosed`], 'text'), (error: Error) =>
        error instanceof InvalidRequestError && /^cmdline_filters\[2\]: invalid regular expression/.test(error.message));
    }
  });
});
