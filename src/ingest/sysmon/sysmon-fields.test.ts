/** The readers of Windows event fields, on the spellings real shippers and Sysmon versions write. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { guidStartMs, hashes, integer, parseTime, registryPath, text } from './sysmon-fields.js';

describe('Sysmon field readers', () => {
  it('treats empty and "-" as absent, and reads numbers as text', () => {
    assert.equal(text({ RuleName: '-' }, 'RuleName'), undefined);
    assert.equal(text({ A: '', B: 'b' }, 'A', 'B'), 'b', 'the first spelling present wins');
    assert.equal(text({ EventID: 1 }, 'EventID'), '1');
    assert.equal(text({ EventID: { nested: 1 } }, 'EventID'), undefined);
  });

  it('reads decimal and Security events\' hexadecimal process ids, nothing else', () => {
    assert.equal(integer({ ProcessId: '4824' }, 'ProcessId'), 4824);
    assert.equal(integer({ ProcessId: '0x242C' }, 'ProcessId'), 0x242c);
    assert.equal(integer({ ProcessId: '12abc' }, 'ProcessId'), undefined);
    assert.equal(integer({ ProcessId: '99999999999999999999' }, 'ProcessId'), undefined);
  });

  it('reads UtcTime as UTC and honours a zone, but will not guess one for local times', () => {
    assert.equal(parseTime('2020-10-18 23:50:05.910', 'utc'), Date.parse('2020-10-18T23:50:05.910Z'));
    assert.equal(parseTime('2020-12-19T06:59:28.410Z', 'refuse'), Date.parse('2020-12-19T06:59:28.410Z'));
    assert.equal(parseTime('2020-12-19T06:59:28.4101234+02:00', 'refuse'), Date.parse('2020-12-19T04:59:28.410Z'));
    assert.equal(parseTime('2020-10-19 12:28:40.538', 'refuse'), undefined);
    assert.equal(parseTime('2020-13-45 99:00:00', 'utc'), undefined, 'no month 13');
    assert.equal(parseTime('not a time', 'utc'), undefined);
  });

  it('takes a process\'s start from its Sysmon GUID', () => {
    assert.equal(guidStartMs('{39e4a257-d4ad-5f8c-3303-000000000700}'), Date.parse('2020-10-18T23:50:05Z'));
    assert.equal(guidStartMs('39e4a257-d4ad-5f8c-3303-000000000700'), Date.parse('2020-10-18T23:50:05Z'), 'braces optional');
    assert.equal(guidStartMs('{de9527a5-6a3f-616f-a52f-d98154560000}'), Date.parse('2021-10-20T01:00:47Z'), 'Sysmon for Linux lays its GUIDs out the same way');
    assert.equal(guidStartMs('{00000000-0000-0000-0000-000000000000}'), undefined);
    assert.equal(guidStartMs('{not-a-guid}'), undefined);
  });

  it('finds MD5 and SHA256 among the hashes Sysmon was configured for', () => {
    assert.deepEqual(hashes('SHA1=7662A8D2F23C3474DEC6EF8E2B0365B0B86714EE,MD5=F68AF942FD7CCC0E7BAB1A2335D2AD26,IMPHASH=F27A7FC3A53E74F45BE370131953896A'),
      { md5: 'F68AF942FD7CCC0E7BAB1A2335D2AD26' });
    assert.deepEqual(hashes('SHA256=' + 'a'.repeat(64)), { sha256: 'a'.repeat(64) });
    assert.deepEqual(hashes('MD5=short'), {});
  });

  it('writes registry paths in the kernel form Carbon Black queries use', () => {
    assert.equal(registryPath('HKLM\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Run\\Updater'),
      '\\registry\\machine\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Run\\Updater');
    assert.equal(registryPath('HKU\\S-1-5-21-1\\Software\\x'), '\\registry\\user\\S-1-5-21-1\\Software\\x');
    assert.equal(registryPath('HKCR\\.exe'), '\\registry\\machine\\software\\classes\\.exe');
    assert.equal(registryPath('HKCU\\Software\\x'), 'HKCU\\Software\\x');
  });
});
