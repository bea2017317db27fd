/**
 * The fast paths of Sysmon ingest read the same as the plain code they replaced: a body's lines
 * decoded one at a time against the whole body decoded then split, and Winlogbeat documents
 * completed in place against the copy that was made before. The plain versions are kept here, as
 * the oracles, and compared on arbitrary input and on every event of the real recordings.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { recordingEvents } from '../../../test/support/sysmon-fixtures.js';
import { toEcs } from '../../../test/support/sysmon-shapes.js';
import { SysmonDecoder } from './sysmon-decoder.js';
import { guidStartMs, guidStartMsByPattern, parseTime, parseTimeByPattern } from './sysmon-fields.js';
import { flatten } from './sysmon-shapes.js';
import { textLines } from './text-lines.js';

const RECORDINGS = [
  'cmd_bitsadmin_download_psh_script', 'cmd_mshta_vbscript_execute_psh', 'cmd_sam_copy_esentutl', 'cmd_seatbelt_group_user',
  'empire_mimikatz_logonpasswords', 'empire_persistence_registry_modification_run_keys_elevated_user',
  'psh_lsass_memory_dump_comsvcs', 'psh_mavinject_dll_notepad', 'psh_python_webserver', 'schtask_create',
];
const NOW = Date.parse('2026-11-26T00:00:00Z');

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The lines as read before: the whole body decoded, split at newlines, trimmed, blank ones left out. */
function plainLines(bytes: Buffer): { line: number; content: string }[] {
  return bytes.toString('utf8').split('\n').map((text, i) => ({ line: i + 1, content: text.trim() })).filter(({ content }) => content !== '');
}

/** fromEcs as it was: a new record, ECS stand-ins first, the event's own fields over them. */
function copiedEcs(document: Json): Json {
  const winlog = document.winlog as Json;
  const data = isObject(winlog.event_data) ? winlog.event_data : {};
  const host = isObject(document.host) ? document.host : {};
  const event = isObject(document.event) ? document.event : {};
  const process = isObject(document.process) ? document.process : {};
  const parent = isObject(process.parent) ? process.parent : {};
  const hash = isObject(process.hash) ? process.hash : {};
  const record: Json = {
    ProcessGuid: process.entity_id, ProcessId: process.pid, Image: process.executable, CommandLine: process.command_line,
    ParentProcessGuid: parent.entity_id, ParentProcessId: parent.pid, ParentImage: parent.executable,
    Hashes: [hash.md5 && `MD5=${String(hash.md5)}`, hash.sha256 && `SHA256=${String(hash.sha256)}`].filter(Boolean).join(',') || undefined,
    ...data,
    EventID: winlog.event_id ?? event.code,
    Channel: winlog.channel,
    Hostname: winlog.computer_name ?? host.hostname ?? host.name,
    '@timestamp': document['@timestamp'],
  };
  return defined(record);
}

/** Absent and undefined read the same to every field reader. */
const defined = (record: Json): Json => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));

/** The document as Winlogbeat sends it when a processor dropped the originals the ECS fields repeat. */
function withStandIns(document: Json): Json {
  const copy = structuredClone(document);
  const data = (copy.winlog as Json).event_data as Json;
  const process: Json = { entity_id: data.ProcessGuid, pid: Number(data.ProcessId), executable: data.Image, command_line: data.CommandLine };
  if (data.ParentProcessGuid !== undefined) process.parent = { entity_id: data.ParentProcessGuid, pid: Number(data.ParentProcessId), executable: data.ParentImage };
  const md5 = /MD5=([0-9A-F]{32})/i.exec(String(data.Hashes ?? ''))?.[1];
  if (md5 !== undefined) process.hash = { md5 };
  for (const field of ['ProcessGuid', 'ProcessId', 'Image', 'CommandLine', 'ParentProcessGuid', 'ParentProcessId', 'ParentImage', 'Hashes']) delete data[field];
  copy.process = process;
  return copy;
}

function flatRecord(document: Json): Json {
  const flat = flatten(document);
  assert.ok('record' in flat);
  return defined(flat.record);
}

describe('Sysmon fast paths read as the plain code did', () => {
  it('a body read line by line from its bytes: arbitrary text, with blank lines, CRs, BOMs and non-ASCII', () => {
    const piece = fc.oneof(fc.constantFrom('\n', '\r\n', ' ', '\t', '\ufeff', '\u00a0', '®', '€', '𝄞', '{"a":1}'), fc.string({ unit: 'binary', maxLength: 12 }));
    fc.assert(fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
      const bytes = Buffer.from(pieces.join(''), 'utf8');
      assert.deepEqual([...textLines(bytes)], plainLines(bytes));
    }), { numRuns: 500 });
  });

  it('a body read line by line from its bytes: arbitrary bytes, invalid UTF-8 included', () => {
    const byte = fc.oneof(fc.constantFrom(0x0a, 0x0d, 0x20, 0xc2, 0xae, 0xe2, 0x82, 0xac, 0xf0, 0xff), fc.integer({ min: 0, max: 255 }));
    fc.assert(fc.property(fc.array(byte, { maxLength: 200 }), (values) => {
      const bytes = Buffer.from(values);
      assert.deepEqual([...textLines(bytes)], plainLines(bytes));
    }), { numRuns: 500 });
  });

  it('the recordings as Winlogbeat bulk bodies: the same lines', () => {
    for (const name of RECORDINGS) {
      const body = Buffer.from(recordingEvents(name).flatMap((event) => ['{"create":{}}', JSON.stringify(toEcs(event))]).join('\n') + '\n');
      assert.deepEqual([...textLines(body)], plainLines(body), name);
    }
  });

  it('UtcTime read digit by digit as the pattern reads it: arbitrary times in Sysmon\'s form, impossible ones included', () => {
    const field = (width: number, max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(width, '0'));
    const time = fc.tuple(field(4, 9999), field(2, 19), field(2, 39), field(2, 29), field(2, 69), field(2, 69), field(3, 999))
      .map(([y, mo, d, h, mi, s, ms]) => `${y}-${mo}-${d} ${h}:${mi}:${s}.${ms}`);
    const noise = fc.string({ unit: fc.constantFrom('0', '1', '9', '-', ' ', ':', '.', 'T', 'Z', '٣'), minLength: 21, maxLength: 25 });
    fc.assert(fc.property(fc.oneof(time, noise), (value) => {
      assert.equal(parseTime(value, 'utc'), parseTimeByPattern(value, 'utc'), value);
      assert.equal(parseTime(value, 'refuse'), parseTimeByPattern(value, 'refuse'), value);
    }), { numRuns: 5000 });
    for (const name of RECORDINGS) {
      for (const event of recordingEvents(name)) {
        if (typeof event.UtcTime === 'string') assert.equal(parseTime(event.UtcTime, 'utc'), parseTimeByPattern(event.UtcTime, 'utc'));
      }
    }
  });

  it('process GUIDs read character by character as the pattern reads them: arbitrary GUIDs, near misses and every recorded one', () => {
    const guid = fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF-{}g '), minLength: 36, maxLength: 40 });
    const braced = fc.array(fc.constantFrom(...'0123456789abcdefABCDEF'), { minLength: 32, maxLength: 32 }).map((digits) => {
      const hex = digits.join('');
      return `{${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}}`;
    });
    const nearMiss = fc.tuple(braced, fc.nat(37), fc.constantFrom('-', 'x', '{', '}', ' ', '0', 'F')).map(([value, at, unit]) => value.slice(0, at) + unit + value.slice(at + 1));
    fc.assert(fc.property(fc.oneof(guid, braced, nearMiss, fc.constant('{00000000-0000-0000-0000-000000000000}')), (value) => {
      assert.equal(guidStartMs(value), guidStartMsByPattern(value), value);
    }), { numRuns: 5000 });
    let compared = 0;
    for (const name of RECORDINGS) {
      for (const event of recordingEvents(name)) {
        for (const field of ['ProcessGuid', 'ParentProcessGuid', 'SourceProcessGuid', 'TargetProcessGuid', 'SourceProcessGUID', 'TargetProcessGUID']) {
          const value = event[field];
          if (typeof value !== 'string') continue;
          assert.equal(guidStartMs(value), guidStartMsByPattern(value), value);
          compared++;
        }
      }
    }
    assert.ok(compared > 5_000, `${compared} GUIDs compared`);
  });

  it('every recorded event as a Winlogbeat document, with its originals and with ECS stand-ins only: the same record and the same Vigil events', () => {
    let compared = 0;
    for (const name of RECORDINGS) {
      const inPlace = new SysmonDecoder();
      const copied = new SysmonDecoder();
      for (const event of recordingEvents(name)) {
        for (const document of [toEcs(event), withStandIns(toEcs(event))]) {
          const expected = copiedEcs(structuredClone(document));
          const record = flatRecord(structuredClone(document));
          assert.deepEqual(record, expected, `${name}: ${JSON.stringify(document).slice(0, 200)}`);
          assert.deepEqual(inPlace.decode(record, NOW), copied.decode(expected, NOW));
          compared++;
        }
      }
    }
    assert.ok(compared > 10_000, `${compared} documents compared`);
  });

  it('an event_data field that is null or present stays the document\'s own, over its ECS stand-in', () => {
    const document = {
      winlog: { event_id: '1', channel: 'Microsoft-Windows-Sysmon/Operational', computer_name: 'H', event_data: { Image: null, CommandLine: 'own' } },
      process: { executable: 'C:\\ecs.exe', command_line: 'ecs', pid: 7 },
    };
    assert.deepEqual(flatRecord(structuredClone(document)), copiedEcs(structuredClone(document)));
    assert.deepEqual(flatRecord(structuredClone(document)), {
      Image: null, CommandLine: 'own', ProcessId: 7, EventID: '1', Channel: 'Microsoft-Windows-Sysmon/Operational', Hostname: 'H',
    });
  });
});
