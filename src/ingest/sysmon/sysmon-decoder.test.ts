/**
 * The Sysmon mapping on real recordings (shared/fixtures/sysmon): what an analyst looks for in
 * each attack comes out as Vigil events, and every line that does not is counted by reason.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recordingEvents } from '../../../test/support/sysmon-fixtures.js';
import type { SensorEvent } from '../event.schemas.js';
import { validateEvents } from '../validate.js';
import { SysmonDecoder, type Decoded } from './sysmon-decoder.js';

const NOW = Date.parse('2026-11-26T00:00:00Z');
/** Start of a process as its Sysmon GUID carries it (whole seconds). */
const startOf = (utc: string) => Math.floor(Date.parse(utc) / 1000) * 1000;

function decodeAll(name: string): { events: SensorEvent[]; hosts: Set<string>; skipped: Map<string, number> } {
  const decoder = new SysmonDecoder();
  const events: SensorEvent[] = [];
  const hosts = new Set<string>();
  const skipped = new Map<string, number>();
  for (const record of recordingEvents(name)) {
    const decoded = decoder.decode(record, NOW);
    if ('reason' in decoded) skipped.set(decoded.reason, (skipped.get(decoded.reason) ?? 0) + 1);
    else {
      hosts.add(`${decoded.host.name} ${decoded.host.osType}`);
      events.push(...decoded.events);
    }
  }
  return { events, hosts, skipped };
}

const of = <T extends SensorEvent['type']>(events: SensorEvent[], type: T) => events.filter((e): e is Extract<SensorEvent, { type: T }> => e.type === type);

describe('Sysmon decoding of real recordings', () => {
  it('LSASS dumped with comsvcs: the rundll32 process, its PowerShell parent, its open of lsass and the dump file', () => {
    const { events, hosts, skipped } = decodeAll('psh_lsass_memory_dump_comsvcs');
    assert.deepEqual([...hosts], ['WORKSTATION5 windows']);
    const rundll = of(events, 'process_start').find((e) => e.cmdline?.includes('comsvcs.dll MiniDump'));
    assert.ok(rundll, 'the attacking process');
    assert.equal(rundll.path, 'C:\\Windows\\System32\\rundll32.exe');
    assert.equal(rundll.pid, 4824);
    assert.equal(rundll.ts, Date.parse('2020-10-18T23:50:05.910Z'), 'time from UtcTime');
    assert.equal(rundll.process_start, startOf('2020-10-18T23:50:05Z'), 'identity from the ProcessGuid');
    assert.equal(rundll.username, 'WORKSTATION5\\wardog');
    assert.equal(rundll.md5, 'F68AF942FD7CCC0E7BAB1A2335D2AD26');
    assert.equal(rundll.sha256, '11064E9EDC605BD5B0C0A505538A0D5FD7DE53883AF342F091687CAE8628ACD0');
    assert.equal(rundll.parent_pid, 6100);
    assert.equal(rundll.parent_path, 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe');
    const child = of(events, 'childproc').find((e) => e.child_pid === 4824);
    assert.deepEqual([child?.pid, child?.process_start, child?.child_start], [6100, rundll.parent_start, rundll.process_start],
      'the parent records the child, under the identity its own events carry');

    const lsassOpens = of(events, 'crossproc').filter((e) => e.pid === 4824 && e.target_path.endsWith('lsass.exe'));
    assert.ok(lsassOpens.some((e) => e.action === 'process_open' && e.access === 0x1fffff && e.target_pid === 756), 'full access to lsass');
    const seenFromLsass = of(events, 'crossproc').find((e) => e.pid === 756 && e.is_target === true && e.target_pid === 4824);
    assert.ok(seenFromLsass, 'lsass records who opened it');
    assert.ok(of(events, 'filemod').some((e) => e.pid === 4824 && e.path.endsWith('lsass-comsvcs.dmp') && e.action === 'create'));
    assert.ok((skipped.get('not_sysmon') ?? 0) > 0, 'Security and other channels are counted, not kept');
  });

  it('Run-key persistence: the registry write in Carbon Black\'s kernel form, on two hosts with domains', () => {
    const { events, hosts } = decodeAll('empire_persistence_registry_modification_run_keys_elevated_user');
    assert.deepEqual([...hosts].sort(), ['MORDORDC windows', 'WORKSTATION5 windows', 'WORKSTATION6 windows'], 'the DC by its Security events');
    const write = of(events, 'regmod').find((e) => e.path === '\\registry\\machine\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Run\\Updater');
    assert.equal(write?.action, 'first_write');
    assert.equal(write?.pid, 9076);
  });

  it('every mapped event of every recording passes the pipeline\'s own schema check', () => {
    for (const name of ['cmd_bitsadmin_download_psh_script', 'cmd_mshta_vbscript_execute_psh', 'cmd_sam_copy_esentutl',
      'cmd_seatbelt_group_user', 'empire_mimikatz_logonpasswords', 'psh_mavinject_dll_notepad', 'psh_python_webserver', 'schtask_create']) {
      const { events, skipped } = decodeAll(name);
      assert.ok(events.length > 0, name);
      assert.deepEqual(validateEvents(events).rejected, [], name);
      // Real data: this lab wrote Security events' time only as local time in some recordings, and
      // Sysmon names a process it could not identify "<unknown process>" with the all-zero GUID.
      const expected = ['not_sysmon', 'unmapped_event_id', 'unknown_process', 'missing_time', 'missing_process_guid'];
      assert.deepEqual([...skipped.keys()].filter((r) => !expected.includes(r)), [], name);
    }
  });

  it('mavinject into notepad: a remote thread, recorded on both processes', () => {
    const { events } = decodeAll('psh_mavinject_dll_notepad');
    const thread = of(events, 'crossproc').find((e) => e.action === 'remote_thread' && e.is_target !== true);
    assert.ok(thread);
    assert.ok(thread.target_path.toLowerCase().endsWith('notepad.exe'));
    assert.ok(of(events, 'crossproc').some((e) => e.action === 'remote_thread' && e.is_target === true && e.pid === thread.target_pid));
  });

  it('bitsadmin: the Security 4688 start keeps its command line, and its 4689 ends that same process', () => {
    const { events } = decodeAll('cmd_bitsadmin_download_psh_script');
    const start = of(events, 'process_start').find((e) => e.path === 'C:\\Windows\\System32\\bitsadmin.exe' && e.process_start === e.ts);
    assert.ok(start, 'the 4688 event');
    assert.ok(start.cmdline?.includes('/transfer'));
    assert.equal(start.pid, 0x242c);
    assert.ok(of(events, 'process_end').some((e) => e.pid === start.pid && e.process_start === start.process_start));
    assert.equal(start.parent_start, undefined, 'cmd.exe started before the recording: known by pid and path only');
  });

  it('python web server: the server process, its PowerShell parent, and the firewall opened for it', () => {
    const { events } = decodeAll('psh_python_webserver');
    const server = of(events, 'process_start').find((e) => e.cmdline?.endsWith('-m http.server 8000'));
    assert.ok(server?.parent_path?.endsWith('powershell.exe'));
    assert.ok(of(events, 'process_start').some((e) => e.path.endsWith('netsh.exe') && e.cmdline?.includes('name=python.exe dir=in')));
  });
});

describe('Sysmon decoding of bad events', () => {
  const good = {
    EventID: 11, Channel: 'Microsoft-Windows-Sysmon/Operational', Hostname: 'HOST1', UtcTime: '2024-05-01 10:00:00.250',
    ProcessGuid: '{39e4a257-d4ad-5f8c-3303-000000000700}', ProcessId: '42', TargetFilename: 'C:\\x.txt',
  };
  const reason = (decoded: Decoded) => ('reason' in decoded ? decoded.reason : 'kept');
  const decode = (changes: Record<string, unknown>) => reason(new SysmonDecoder().decode({ ...good, ...changes }, NOW));

  it('keeps a well-formed event', () => assert.equal(decode({}), 'kept'));
  it('names each way an event can be refused', () => {
    assert.equal(decode({ UtcTime: '1970-01-01 00:00:01.000' }), 'time_out_of_range');
    assert.equal(decode({ UtcTime: '2027-01-01 00:00:00.000' }), 'time_out_of_range');
    assert.equal(decode({ UtcTime: 'yesterday' }), 'missing_time');
    assert.equal(decode({ ProcessGuid: undefined }), 'missing_process_guid');
    assert.equal(decode({ ProcessGuid: '{00000000-0000-0000-0000-000000000000}' }), 'missing_process_guid');
    assert.equal(decode({ ProcessId: 'x' }), 'missing_field');
    assert.equal(decode({ TargetFilename: '' }), 'missing_field');
    assert.equal(decode({ Hostname: undefined }), 'missing_hostname');
    assert.equal(decode({ EventID: 'eleven' }), 'unknown_event_id');
    assert.equal(decode({ EventID: 9 }), 'unmapped_event_id');
    assert.equal(decode({ EventID: 999 }), 'unmapped_event_id');
    assert.equal(decode({ Channel: 'System' }), 'not_sysmon');
    assert.equal(decode({ Channel: 'Security', EventID: 4689, ProcessId: '0x10', '@timestamp': '2024-05-01T10:00:00Z' }), 'unknown_process');
    assert.equal(decode({ Channel: 'Security', EventID: 4688, UtcTime: undefined, TimeCreated: '2024-05-01 10:00:00.000' }), 'missing_time',
      'a Security event\'s zoneless time is local, so unknown');
  });
  it('maps a connection the host accepted as inbound, the remote end being its source', () => {
    const decoded = new SysmonDecoder().decode({
      ...good, EventID: 3, Initiated: 'false', Protocol: 'tcp', SourceIp: '10.0.0.9', SourcePort: '50123',
      DestinationIp: '10.0.0.5', DestinationPort: '8000', SourceHostname: 'attacker.example',
    }, NOW);
    assert.ok('events' in decoded);
    assert.deepEqual(decoded.events[0], {
      type: 'netconn', ts: Date.parse('2024-05-01T10:00:00.250Z'), pid: 42, process_start: startOf('2020-10-18T23:50:05Z'),
      direction: 'inbound', proto: 6, remote_ip: '10.0.0.9', remote_port: 50123, local_ip: '10.0.0.5', local_port: 8000, domain: 'attacker.example',
    });
  });
  it('links a Security 4688 to its parent\'s 4688, when that was seen', () => {
    const decoder = new SysmonDecoder();
    const security = { Channel: 'Security', Hostname: 'H', '@timestamp': '2024-05-01T10:00:00Z', NewProcessName: 'C:\\x.exe' };
    const parent = decoder.decode({ ...security, EventID: 4688, NewProcessId: '0x10', ProcessId: '0x4' }, NOW);
    const child = decoder.decode({ ...security, EventID: 4688, '@timestamp': '2024-05-01T10:00:02Z', NewProcessId: '0x20', ProcessId: '0x10' }, NOW);
    assert.ok('events' in parent && 'events' in child);
    const [childStart] = child.events;
    assert.ok(childStart?.type === 'process_start');
    assert.deepEqual([childStart.parent_pid, childStart.parent_start], [0x10, Date.parse('2024-05-01T10:00:00Z')]);
  });
  it('reads Sysmon for Linux as a Linux host', () => {
    const decoded = new SysmonDecoder().decode({ ...good, Channel: 'Linux-Sysmon/Operational', TargetFilename: '/tmp/x' }, NOW);
    assert.ok('events' in decoded);
    assert.equal(decoded.host.osType, 'linux');
  });
  it('loads a driver into the System process', () => {
    const decoded = new SysmonDecoder().decode({ ...good, EventID: 6, ImageLoaded: 'C:\\Windows\\x.sys', Hashes: 'SHA256=' + 'a'.repeat(64) }, NOW);
    assert.ok('events' in decoded);
    assert.deepEqual(decoded.events, [{ type: 'modload', ts: Date.parse('2024-05-01T10:00:00.250Z'), pid: 4, process_start: 0, path: 'C:\\Windows\\x.sys', md5: '0'.repeat(32), sha256: 'a'.repeat(64) }]);
  });
});
