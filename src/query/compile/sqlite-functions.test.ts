/** The SQL functions compiled conditions call: the language's matching rules over stored values. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SQLITE_FUNCTIONS } from './sqlite-functions.js';

const f = SQLITE_FUNCTIONS;
const CMDLINE = '"C:\\Windows\\system32\\rundll32.exe" /d srrstr.dll,ExecuteScheduledSPPC';

describe('SQL functions of compiled conditions', () => {
  it('compares keywords case-insensitively, Unicode included', () => {
    assert.equal(f.vigil_keyword!('ÅSA\\Admin', 'åsa\\admin'), 1);
    assert.equal(f.vigil_keyword!('asa', 'åsa'), 0);
    assert.equal(f.vigil_glob!('WEB-01', 'web-*'), 1);
    assert.equal(f.vigil_glob!(null, '*'), 1, 'NULL reads as the empty value, never as NULL');
  });

  it('matches runs of tokens, an extension token standing where its word stands', () => {
    const phrase = (tokens: string[], wildcard = 0) => f.vigil_tokens!(CMDLINE, 'cmdline', JSON.stringify(tokens), wildcard);
    assert.equal(phrase(['rundll32.exe', '/d']), 1);
    assert.equal(phrase(['.exe', '/d', 'srrstr.dll']), 1);
    assert.equal(phrase(['/d', 'rundll32.exe']), 0);
    assert.equal(phrase(['run*', '/?'], 1), 1);
    assert.equal(f.vigil_tokens!('Microsoft® Windows® Operating System', 'text', '["windows","operating"]', 0), 1);
    assert.equal(f.vigil_tokens!(null, 'text', '["x"]', 0), 0);
  });

  it('finds paths by trailing sub-paths, registry control sets folded', () => {
    assert.equal(f.vigil_subpath!('/usr/sbin/nginx', 'sbin\\nginx', 0), 1);
    assert.equal(f.vigil_subpath!('/usr/sbin/nginx', 'bin\\nginx', 0), 0);
    assert.equal(f.vigil_subpath!('\\REGISTRY\\MACHINE\\SYSTEM\\ControlSet002\\x', 'system\\currentcontrolset\\x', 1), 1);
    assert.equal(f.vigil_subpath_glob!('c:\\windows\\system32\\cmd.exe', 'system*\\*.exe', 0), 1);
    assert.equal(f.vigil_subpath_glob!('c:\\windows\\system32\\cmd.exe', 'ystem32\\*', 0), 0);
  });

  it('matches an extension pattern against a word\'s last extension only', () => {
    assert.equal(f.vigil_extension_glob!('srrstr.dll', '.d*'), 1);
    assert.equal(f.vigil_extension_glob!('a.dat.zip', '.d*'), 0);
    assert.equal(f.vigil_extension_glob!('.dll', '.d*'), 0, 'a word that is all extension is matched as a word, not here');
  });
});
