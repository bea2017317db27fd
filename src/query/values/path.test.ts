/** Path normal form and sub-paths (reference §5.4). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchesSubPath, normalizePath, pathSubPaths } from './path.js';

describe('paths', () => {
  it('indexes every trailing sub-path, as the user guide lists them', () => {
    assert.deepEqual(pathSubPaths(normalizePath('c:\\windows\\system32\\boot\\winload.exe')), [
      'c:\\windows\\system32\\boot\\winload.exe', 'windows\\system32\\boot\\winload.exe', 'system32\\boot\\winload.exe',
      'boot\\winload.exe', 'winload.exe',
    ]);
  });

  it('normalizes case, slashes, repeats and leading or trailing separators', () => {
    assert.equal(normalizePath('\\\\Server//Share\\Dir\\'), 'server\\share\\dir');
    assert.equal(normalizePath('/usr/bin/ls'), 'usr\\bin\\ls');
  });

  it('folds registry control sets into currentcontrolset', () => {
    assert.equal(normalizePath('\\REGISTRY\\MACHINE\\SYSTEM\\ControlSet002\\Services', { registry: true }),
      'registry\\machine\\system\\currentcontrolset\\services');
    assert.equal(normalizePath('c:\\controlset001\\x'), 'c:\\controlset001\\x');
  });

  it('matches whole segments only', () => {
    const path = normalizePath('c:\\windows\\system32\\boot\\winload.exe');
    assert.ok(matchesSubPath(path, 'boot\\winload.exe'));
    assert.ok(matchesSubPath(path, path));
    assert.ok(!matchesSubPath(path, 'oot\\winload.exe'));
    assert.ok(!matchesSubPath(path, 'boot'));
  });
});
