/**
 * The activity a simulated Windows workstation reports, as issue 3 asks of `vigil simulate`: the
 * process trees, accounts, command lines, connections, writes, loads and binaries an analyst
 * expects to hunt through. Pure: one endpoint of a fixed seed, no server.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SensorEvent } from '../ingest/event.schemas.js';
import type { Binary } from './binaries.js';
import { Endpoint } from './endpoint.js';

type Of<T extends SensorEvent['type']> = Extract<SensorEvent, { type: T }>;

// Index 0 of this seed is a Windows workstation (asserted below), with a user session on it.
const endpoint = new Endpoint({ seed: 'activity', index: 0, startMs: Date.UTC(2025, 10, 22, 8), processes: 200 });
const events: SensorEvent[] = [];
const binaries: Binary[] = [];
while (!endpoint.exhausted) {
  events.push(...endpoint.take(1000));
  binaries.push(...endpoint.takeBinaries());
}
const ofType = <T extends SensorEvent['type']>(type: T) => events.filter((e): e is Of<T> => e.type === type);
const starts = ofType('process_start');
const name = (path: string | undefined) => path?.slice(path.lastIndexOf('\\') + 1);

describe(`a simulated Windows workstation (${endpoint.hostname})`, () => {
  it('is a Windows workstation', () => {
    assert.deepEqual([endpoint.os, endpoint.facts.host_type], ['windows', 'workstation']);
  });

  it('grows the process trees analysts know: explorer.exe starts chrome.exe, services.exe starts svchost.exe', () => {
    const edges = new Set(starts.map((s) => `${name(s.parent_path)} -> ${name(s.path)}`));
    for (const edge of ['explorer.exe -> chrome.exe', 'services.exe -> svchost.exe', 'userinit.exe -> explorer.exe', 'explorer.exe -> cmd.exe', 'cmd.exe -> whoami.exe']) {
      assert.ok(edges.has(edge), `${edge}; have ${[...edges].join(', ')}`);
    }
    const chrome = starts.find((s) => name(s.path) === 'chrome.exe' && name(s.parent_path) === 'explorer.exe')!;
    assert.equal(chrome.path, 'c:\\program files\\google\\chrome\\application\\chrome.exe');
    const childproc = ofType('childproc').find((e) => e.action === 'start' && e.child_pid === chrome.pid && e.child_start === chrome.process_start);
    assert.ok(childproc, 'explorer.exe reports the start of its chrome.exe child');
  });

  it('runs cmd.exe and powershell.exe with real-looking command lines', () => {
    const cmdlines = (exe: string) => new Set(starts.filter((s) => name(s.path) === exe).map((s) => s.cmdline ?? ''));
    assert.ok([...cmdlines('cmd.exe')].some((c) => /^cmd\.exe \/c \S/i.test(c)), [...cmdlines('cmd.exe')].join(' | '));
    const powershell = [...cmdlines('powershell.exe')];
    assert.ok(powershell.some((c) => / -(NoProfile|EncodedCommand|ExecutionPolicy) /.test(c)), powershell.join(' | '));
    const encoded = powershell.map((c) => / -EncodedCommand (\S+)/.exec(c)?.[1]).find(Boolean)!;
    assert.match(Buffer.from(encoded, 'base64').toString('utf16le'), /^Get-CimInstance /, 'UTF-16LE script, as PowerShell takes it');
  });

  it('runs processes as SYSTEM, as the logged-on user, and with an empty username', () => {
    const account = (exe: string) => starts.filter((s) => name(s.path) === exe).map((s) => [s.username, s.uid]);
    assert.deepEqual(account('services.exe'), [['SYSTEM', 'S-1-5-18']]);
    assert.deepEqual(account('ntoskrnl.exe'), [['', undefined]], 'the kernel runs under no account');
    assert.deepEqual(account('csrss.exe'), [['', undefined], ['', undefined]], 'nor do the two client/server runtimes');
    const [user, sid] = account('explorer.exe')[0]!;
    assert.match(user!, /^CORP\\[a-z]+$/);
    assert.match(sid!, /^S-1-5-21-\d+-\d+-\d+-\d+$/);
  });

  it('connects out to named domains, and answers inbound', () => {
    const netconns = ofType('netconn');
    const domains = new Set(netconns.map((e) => e.domain).filter(Boolean));
    assert.ok(domains.size >= 5, `${domains.size} domains`);
    for (const domain of domains) assert.match(domain!, /^[a-z0-9-]+(\.[a-z0-9-]+)+$/);
    assert.ok(netconns.some((e) => e.direction === 'outbound' && e.remote_port === 443 && e.ja3 && e.ja3s), 'TLS with ja3/ja3s');
    assert.ok(netconns.every((e) => e.local_ip === '10.1.0.2' || e.local_ip?.startsWith('2001:db8:1::')), 'from the host\'s own address');
  });

  it('writes files and the registry, loads modules, and opens other processes', () => {
    const written = ofType('filemod').filter((e) => e.action === 'last_write');
    assert.ok(written.length > 20);
    assert.ok(written.some((e) => e.file_type === 1 && /^[0-9a-f]{32}$/.test(e.md5 ?? '')), 'a PE written, with its hash after the last write');
    const regmods = ofType('regmod');
    assert.deepEqual(new Set(regmods.map((e) => e.action)), new Set(['first_write', 'create_key', 'delete_key', 'delete_value']));
    assert.ok(regmods.every((e) => e.path.startsWith('\\registry\\')), 'registry paths as the kernel names them');
    const modules = new Set(ofType('modload').map((e) => name(e.path)));
    for (const dll of ['ntdll.dll', 'kernel32.dll', 'chrome.dll']) assert.ok(modules.has(dll), dll);
    const crossprocs = ofType('crossproc');
    assert.deepEqual(new Set(crossprocs.map((e) => e.action)), new Set(['process_open', 'thread_open']));
    const started = new Map(starts.map((s) => [`${s.pid}@${s.process_start}`, s]));
    for (const e of crossprocs) {
      assert.ok(e.access > 0);
      assert.notEqual(`${e.target_pid}@${e.target_start}`, `${e.pid}@${e.process_start}`, 'another process');
      assert.equal(started.get(`${e.target_pid}@${e.target_start}`)?.path, e.target_path, 'a process that started, named by its path');
    }
  });

  it('uploads PE binaries starting with MZ, signed by their publishers or unsigned', () => {
    assert.ok(binaries.every((b) => b.content.subarray(0, 2).toString('latin1') === 'MZ'));
    const signer = (file: string) => binaries.find((b) => name(b.path) === file)?.metadata.digsig;
    assert.deepEqual(
      [signer('explorer.exe')?.publisher, signer('chrome.exe')?.publisher, signer('firefox.exe')?.publisher],
      ['Microsoft Windows', 'Google LLC', 'Mozilla Corporation'],
    );
    for (const file of ['explorer.exe', 'chrome.exe']) {
      const digsig = signer(file)!;
      assert.equal(digsig.result, 'Signed');
      assert.ok(digsig.sign_time! > Date.UTC(2020, 0, 1) && digsig.sign_time! < Date.UTC(2025, 0, 1), `${file} signed at ${digsig.sign_time}`);
    }
    const unsigned = binaries.filter((b) => b.metadata.digsig?.result === 'Unsigned');
    assert.ok(unsigned.some((b) => /\\downloads\\installer_.*\.exe$/.test(b.path)), 'a downloaded installer is unsigned');
    assert.ok(unsigned.every((b) => b.metadata.digsig!.publisher === undefined));
    assert.equal(binaries.find((b) => name(b.path) === '7zfm.exe')?.metadata.company_name, 'Igor Pavlov', 'unsigned, yet with a company');
  });
});
