/**
 * What each kind of field matches (reference query language §5), end to end: processes sent
 * through the sensor protocol, found through GET /api/v1/process. One document per process
 * (cb.group=id) keeps the expectations to process names.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { registerSensor, uploadEvents } from '../../../test/support/sensors.js';
import { buildFleet, BINARIES, EVENT_VALUES, md5Of, names, processStart, searchProcesses } from '../../../test/support/search.js';
import { ipv4ToInt, toSignedInt32 } from '../../query/values/ip.js';

const ALL = ['bash', 'cmd.exe', 'explorer.exe', 'nginx', 'powershell.exe'];
const { ja3, ja3s, upstreamV6, injectedMd5, blockedMd5 } = EVENT_VALUES;

/** Query → the processes it finds (sorted). */
const CASES: readonly (readonly [string, readonly string[]])[] = [
  // keywords: whole value, any case, wildcards
  ['process_name:CMD.EXE', ['cmd.exe']],
  ['process_name:power*', ['powershell.exe']],
  ['process_name:*.exe', ['cmd.exe', 'explorer.exe', 'powershell.exe']],
  ['parent_name:explorer.exe', ['cmd.exe', 'powershell.exe']],
  ['username:corp\\alice', ['cmd.exe', 'explorer.exe', 'powershell.exe']],
  ['username:"CORP\\ALICE"', ['cmd.exe', 'explorer.exe', 'powershell.exe']],
  ['username:www*', ['bash']],
  ['hostname:WIN-ACCT-01', ['cmd.exe', 'explorer.exe', 'powershell.exe']],
  ['hostname:web*', ['bash', 'nginx']],
  ['group:servers', ['bash', 'nginx']],
  ['group:"default group"', ['cmd.exe', 'explorer.exe', 'powershell.exe']],
  ['os_type:linux', ['bash', 'nginx']],
  ['host_type:workstation', ['cmd.exe', 'explorer.exe', 'powershell.exe']],
  // paths: the whole path or a trailing sub-path, either slash
  ['path:system32\\cmd.exe', ['cmd.exe']],
  ['path:c:/windows/system32/cmd.exe', ['cmd.exe']],
  ['path:ystem32\\cmd.exe', []],
  ['path:windows\\*', ['cmd.exe', 'explorer.exe', 'powershell.exe']],
  ['path:usr\\*\\nginx', ['nginx']],
  ['filemod:temp\\a.ps1', ['powershell.exe']],
  ['filemod:c:\\temp\\out.txt', ['cmd.exe']],
  ['regmod:services\\x', ['cmd.exe']],
  ['regmod:\\registry\\machine\\system\\controlset001\\services\\x', ['cmd.exe']],
  ['modload:ntdll.dll', ['cmd.exe']],
  // command lines: tokens, phrases, switches, extensions, wildcards inside tokens
  ['cmdline:whoami', ['cmd.exe']],
  ['cmdline:"/c whoami"', ['cmd.exe']],
  ['cmdline:"whoami /c"', []],
  ['cmdline:/c', ['cmd.exe']],
  ['cmdline:-encodedcommand', ['powershell.exe']],
  ['cmdline:*encoded*', ['powershell.exe']],
  ['cmdline:.exe', ['cmd.exe', 'explorer.exe', 'powershell.exe']],
  ['cmdline:.e*', ['cmd.exe', 'explorer.exe', 'powershell.exe']],
  ['cmdline:.ru', ['bash']],
  ['cmdline:evil.example.ru', ['bash']],
  // hashes
  [`process_md5:${md5Of(BINARIES.cmd).toUpperCase()}`, ['cmd.exe']],
  [`parent_md5:${md5Of(BINARIES.explorer)}`, ['cmd.exe', 'powershell.exe']],
  [`md5:${md5Of(BINARIES.explorer)}`, ['cmd.exe', 'explorer.exe', 'powershell.exe']],
  [`md5:${'c'.repeat(32)}`, ['cmd.exe']],
  [`childproc_md5:${'c'.repeat(32)}`, ['cmd.exe']],
  [`filewrite_md5:${'d'.repeat(32)}`, ['powershell.exe']],
  // network
  ['domain:example.com', ['cmd.exe']],
  ['domain:microsoft.com', ['powershell.exe']],
  ['domain:.ru', ['bash']],
  ['domain:example.', ['cmd.exe']],
  ['domain:example', ['bash', 'cmd.exe']],
  ['domain:.example.', ['bash']],
  ['ipaddr:93.184.216.34', ['cmd.exe']],
  ['ipaddr:13.107.0.0/16', ['powershell.exe']],
  [`ipaddr:${toSignedInt32(ipv4ToInt('185.1.2.3')!)}`, ['bash']],
  ['ipport:443', ['cmd.exe', 'powershell.exe']],
  ['ipport:[1 TO 100]', ['bash']],
  // IPv6 remote addresses: the address, a prefix, a range, and an IPv6 literal under ipaddr (reference §5.7)
  [`ipv6addr:${upstreamV6}`, ['nginx']],
  ['ipv6addr:2001:db8:85a3:0:0:8a2e:370:7334', ['nginx']],
  ['ipv6addr:2001:db8::/32', ['nginx']],
  ['ipv6addr:2001:db9::/32', []],
  ['ipv6addr:[2001:db8:: TO 2001:db8:ffff::]', ['nginx']],
  ['ipv6addr:[* TO *]', ['nginx']],
  ['ipaddr:[* TO *]', ['bash', 'cmd.exe', 'powershell.exe']],
  ['ipv6addr:::1', []],
  [`ipaddr:${upstreamV6}`, ['nginx']],
  ['ipaddr:2001:db8::/32', ['nginx']],
  ['ipaddr:0.0.0.0/0', ['bash', 'cmd.exe', 'powershell.exe']],
  ['ipv6addr:0.0.0.0/0', ['bash', 'cmd.exe', 'powershell.exe']],
  // TLS fingerprints: exact hashes in any case, each in its own field
  [`ja3:${ja3.toLowerCase()}`, ['powershell.exe']],
  [`ja3s:${ja3s}`, ['powershell.exe']],
  [`ja3:${ja3s}`, []],
  [`ja3s:${ja3}`, []],
  [`ja3:${ja3.slice(0, 8)}*`, ['powershell.exe']],
  // other event fields
  ['childproc_name:whoami.exe', ['cmd.exe']],
  ['crossproc_name:lsass.exe', ['cmd.exe']],
  ['crossproc_type:process_open', ['cmd.exe']],
  ['crossproc_type:remote_thread', ['powershell.exe']],
  // crossproc_md5 is the target's md5 and finds the actor; neither a default field nor part of md5's union
  [`crossproc_md5:${injectedMd5.toUpperCase()}`, ['powershell.exe']],
  [`crossproc_md5:${md5Of(BINARIES.cmd)}`, []],
  [`md5:${injectedMd5}`, []],
  [injectedMd5, []],
  // blocked_md5 finds the process that tried to start the banned binary; it is a default field, not in md5's union
  [`blocked_md5:${blockedMd5}`, ['explorer.exe']],
  [`blocked_md5:${blockedMd5.toUpperCase()}`, ['explorer.exe']],
  [blockedMd5, ['explorer.exe']],
  [`md5:${blockedMd5}`, []],
  ['tampered:true', ['bash']],
  // counts and times
  ['netconn_count:1', ['bash', 'cmd.exe', 'nginx', 'powershell.exe']],
  ['filemod_count:[1 TO *]', ['cmd.exe', 'powershell.exe']],
  ['start:2026-11-20', ['bash', 'cmd.exe', 'explorer.exe', 'nginx', 'powershell.exe']],
  ['start:[2026-11-20T09:59:00 TO 2026-11-20T10:00:00]', ['cmd.exe', 'explorer.exe']],
  ['process_pid:4242', ['cmd.exe']],
  // the process's binary, and its parent's
  ['digsig_result:Unsigned', ['powershell.exe']],
  ['company_name:microsoft', ['cmd.exe', 'explorer.exe']],
  ['product_name:"windows operating system"', ['cmd.exe']],
  ['product_name:"operating windows"', []],
  ['digsig_publisher:"microsoft corporation"', ['cmd.exe', 'explorer.exe']],
  ['is_64bit:true', ['cmd.exe']],
  ['digsig_result_parent:signed', ['cmd.exe', 'powershell.exe']],
  // default fields, booleans, negation
  ['svchost.exe', []],
  ['whoami', ['cmd.exe']],
  ['lsass.exe', []],
  ['nginx OR bash', ['bash', 'nginx']],
  ['-process_name:*.exe', ['bash', 'nginx']],
  ['process_name:*.exe -(parent_name:explorer.exe)', ['explorer.exe']],
  ['', ALL],
];

describe('process search: what each field matches', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp();
    await buildFleet(test);
  });
  after(() => test.close());

  for (const [q, expected] of CASES) {
    it(`${q || '(empty)'} → ${expected.join(', ') || 'nothing'}`, async () => {
      const reply = await searchProcesses(test, { q, 'cb.group': 'id', rows: 100 });
      assert.deepEqual(names(reply.results).sort(), [...expected]);
      assert.equal(reply.total_results, expected.length);
    });
  }

  it('ANDs cb.q.<field> and cb.fq.<field> with q, and ORs repeats of one', async () => {
    const found = async (params: Record<string, string | string[]>) =>
      names((await searchProcesses(test, { ...params, 'cb.group': 'id', rows: 100 })).results).sort();
    assert.deepEqual(await found({ q: 'hostname:win-acct-01', 'cb.q.process_name': 'cmd.exe' }), ['cmd.exe']);
    assert.deepEqual(await found({ 'cb.q.process_name': ['cmd.exe', 'nginx'] }), ['cmd.exe', 'nginx']);
    assert.deepEqual(await found({ 'cb.fq.username': 'root', 'cb.q.os_type': 'linux' }), ['nginx']);
  });
});

describe('process search: ja3 and ja3s are keywords, any value', () => {
  // A JA3 string itself rather than its md5, with the characters a hash never holds.
  const ja3 = '771,4865-4866-4867,0-23-65281/"Curl" ÜBER';
  let test: TestApp;
  before(async () => {
    test = await startTestApp();
    const sensor = await registerSensor(test, { computer_name: 'tls-probe' });
    const start = Date.parse('2026-11-20T10:00:00Z');
    const upload = await uploadEvents(test, sensor, 1, [
      processStart(700, start, { path: '/usr/bin/curl', cmdline: 'curl https://example.org', username: 'root' }),
      { type: 'netconn', ts: start + 1, pid: 700, process_start: start, direction: 'outbound', proto: 6, remote_ip: '93.184.216.34', remote_port: 443, ja3, ja3s: 'tls13-plain' },
      processStart(701, start, { path: '/usr/bin/wget', cmdline: 'wget https://example.org', username: 'root' }),
    ]);
    assert.equal(upload.statusCode, 200, upload.body);
  });
  after(() => test.close());

  it('finds the process by its ja3 as sent, in any case, and by its ja3s', async () => {
    for (const q of [`ja3:"${ja3.replace(/"/gu, '\\"')}"`, `ja3:"${ja3.toLowerCase().replace(/"/gu, '\\"')}"`, 'ja3:771,4865*', 'ja3s:TLS13-plain']) {
      const reply = await searchProcesses(test, { q, 'cb.group': 'id', rows: 10 });
      assert.deepEqual(names(reply.results), ['curl'], q);
    }
    assert.equal((await searchProcesses(test, { q: 'ja3:771', rows: 10 })).total_results, 0);
  });
});
