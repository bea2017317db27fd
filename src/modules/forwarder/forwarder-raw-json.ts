/**
 * Raw events' JSON written from the stored chunk's own bytes. A chunk is the UTF-8 of the JSON
 * text that JSON.stringify made of positional rows (src/ingest/event-codec.ts), so the bytes of
 * each value in it are already what JSON.stringify writes for that value: most members of a
 * record are copied from them into the output's bytes, and only those a record changes (times in
 * seconds, upper-case MD5s, defaults, names of codes) are computed. No string, event object or
 * record object per event: decoding and stringifying, encoding each record's string again and
 * the garbage all of it left were most of what the forwarder's thread did
 * (docs/adr/0036-forwarder-thread.md). The bytes are byte for byte JSON.stringify of
 * rawEventRecord (forwarder-raw-text.property.test.ts holds the two to that).
 */
import { processId } from '../../domain/process-id.js';
import { STORED_FIELDS, STORED_TYPES } from '../../ingest/event-codec.js';
import type { SensorEvent } from '../../ingest/event.schemas.js';
import type { BatchBytes } from './outputs/batch-bytes.js';
import { CROSSPROC_TYPES, FILEMOD_ACTIONS, REGMOD_ACTIONS } from './forwarder-records.js';
import { BACKSLASH, DIGIT_0, DIGIT_9, MINUS, QUOTE, type ChunkRows } from './forwarder-chunk-rows.js';

/** What the records of one chunk share, as JSON bytes made once per chunk. */
export interface ChunkJson {
  /** For a type code: the members from `cb_server` to `process_path`, each with a comma before it. */
  common(code: number): Uint8Array;
  /** The process's MD5, upper case, as a JSON string. */
  processMd5: Uint8Array;
  /** The process's id, as a JSON string. */
  guid: Uint8Array;
  sensorId: number;
}

/** Writes one member's value; false when the record leaves the member out. */
type Write = (rows: ChunkRows, row: number, chunk: ChunkJson, out: BatchBytes) => boolean;

const utf8 = (text: string) => Buffer.from(text, 'utf8');

/**
 * A value's JSON as rawEventRecord's expression `f` makes it from the decoded value (of `token`,
 * -1 for none): the way for whatever the fast ways do not cover.
 */
function viaValue(rows: ChunkRows, token: number, f: (value: unknown) => unknown, out: BatchBytes): boolean {
  const text = JSON.stringify(f(rows.decoded(token)));
  if (text === undefined) return false;
  out.append(text);
  return true;
}

const isNumber = (c: number | undefined) => (c !== undefined && c >= DIGIT_0 && c <= DIGIT_9) || c === MINUS;

/** seconds(value) of a token that is there (null included), as a number. */
export function secondsOf(rows: ChunkRows, token: number): number {
  return (isNumber(rows.bytes[rows.start(token)]) ? rows.number(token) : rows.decoded(token) as number) / 1000;
}

/** seconds(value): epoch milliseconds to seconds. */
function writeSeconds(rows: ChunkRows, token: number, out: BatchBytes): boolean {
  if (token >= 0 && isNumber(rows.bytes[rows.start(token)])) {
    const seconds = rows.number(token) / 1000;
    out.appendAscii(Number.isFinite(seconds) ? String(seconds) : 'null');
    return true;
  }
  return viaValue(rows, token, (value) => (value as number) / 1000, out);
}

const upperMd5 = (md5: unknown) => (md5 && (md5 as string).length === 32 ? (md5 as string).toUpperCase() : md5 ?? '');
const EMPTY_STRING = utf8('""');

/** upperMd5(value): a 32-character ASCII string without escapes is upper-cased as it stands. */
function writeMd5(rows: ChunkRows, token: number, out: BatchBytes): boolean {
  if (token < 0) {
    out.appendBytes(EMPTY_STRING);
    return true;
  }
  const { bytes } = rows;
  const start = rows.start(token);
  if (rows.end(token) - start === 34 && bytes[start] === QUOTE) {
    let plain = true;
    for (let i = start + 1; i < start + 33 && plain; i++) plain = bytes[i]! < 128 && bytes[i] !== BACKSLASH;
    if (plain) {
      const at = out.length;
      rows.copy(token, out);
      out.upperAscii(at);
      return true;
    }
  }
  return viaValue(rows, token, upperMd5, out);
}

/** A name table's JSON by the JSON of its keys. */
function lookup(table: Readonly<Record<string, unknown>>): (rows: ChunkRows, token: number, out: BatchBytes) => boolean {
  const known = Object.entries(table).map(([key, value]) => [utf8(JSON.stringify(key)), utf8(JSON.stringify(value))] as const);
  return (rows, token, out) => {
    if (token >= 0) {
      for (const [key, value] of known) {
        if (rows.equals(token, key)) {
          out.appendBytes(value);
          return true;
        }
      }
    }
    return viaValue(rows, token, (value) => table[value as string], out);
  };
}

/** The members of one type's record after the common ones, in rawEventRecord's order. */
function membersOf(type: SensorEvent['type'], spec: readonly (readonly [key: string, write: (at: (field: string) => number) => Write])[]) {
  const fields = STORED_FIELDS[STORED_TYPES.indexOf(type)]!;
  const at = (field: string) => {
    const index = fields.indexOf(field);
    if (index < 0) throw new Error(`${type} stores no ${field}`);
    return index + 2;
  };
  return spec.map(([key, write]) => [utf8(`,${JSON.stringify(key)}:`), write(at)] as const);
}

const copy = (field: string) => (at: (field: string) => number): Write => {
  const position = at(field);
  return (rows, row, _chunk, out) => {
    const token = rows.value(row, position);
    if (token < 0) return false;
    rows.copy(token, out);
    return true;
  };
};
const copyOr = (field: string, fallback: unknown) => (at: (field: string) => number): Write => {
  const position = at(field);
  const bytes = utf8(JSON.stringify(fallback));
  return (rows, row, _chunk, out) => {
    const token = rows.value(row, position);
    if (token < 0) out.appendBytes(bytes);
    else rows.copy(token, out);
    return true;
  };
};
const md5Of = (field: string) => (at: (field: string) => number): Write => {
  const position = at(field);
  return (rows, row, _chunk, out) => writeMd5(rows, rows.value(row, position), out);
};
const named = (field: string, table: Readonly<Record<string, unknown>>) => (at: (field: string) => number): Write => {
  const position = at(field);
  const write = lookup(table);
  return (rows, row, _chunk, out) => write(rows, rows.value(row, position), out);
};
const constant = (bytes: Uint8Array): Write => (_rows, _row, _chunk, out) => {
  out.appendBytes(bytes);
  return true;
};
const always = (value: unknown) => (): Write => constant(utf8(JSON.stringify(value)));
const processMd5: () => Write = () => (_rows, _row, chunk, out) => {
  out.appendBytes(chunk.processMd5);
  return true;
};
/** childproc's action compared as stored: JSON.stringify writes 'start' only so. */
const whenStarted = (started: string, ended: string) => (at: (field: string) => number): Write => {
  const position = at('action');
  const [start, yes, no] = [utf8('"start"'), utf8(started), utf8(ended)];
  return (rows, row, _chunk, out) => {
    const token = rows.value(row, position);
    out.appendBytes(token >= 0 && rows.equals(token, start) ? yes : no);
    return true;
  };
};
const [TRUE, FALSE, ZERO] = [utf8('true'), utf8('false'), utf8('0')];

const MEMBERS: readonly (readonly (readonly [prefix: Uint8Array, write: Write])[])[] = STORED_TYPES.map((type) => {
  switch (type) {
    case 'process_start':
      return membersOf(type, [
        ['path', copy('path')], ['md5', md5Of('md5')], ['sha256', copyOr('sha256', '')], ['command_line', copyOr('cmdline', '')],
        ['parent_path', copyOr('parent_path', '')], ['parent_pid', copyOr('parent_pid', -1)],
        ['parent_create_time', (at) => {
          const position = at('parent_start');
          return (rows, row, _chunk, out) => {
            const token = rows.value(row, position);
            if (token >= 0) return writeSeconds(rows, token, out);
            out.appendBytes(ZERO);
            return true;
          };
        }],
        ['parent_md5', md5Of('parent_md5')], ['username', copy('username')], ['uid', copy('uid')],
        ['filtering_known_dlls', always(false)], ['expect_followon_w_md5', always(false)],
      ]);
    case 'process_end':
      return membersOf(type, [['md5', processMd5]]);
    case 'filemod':
      return membersOf(type, [
        ['md5', processMd5], ['path', copy('path')], ['action', copy('action')], ['action_type', named('action', FILEMOD_ACTIONS)],
        ['file_md5', (at) => {
          const position = at('md5');
          return (rows, row, _chunk, out) => {
            const token = rows.value(row, position);
            return token >= 0 && writeMd5(rows, token, out);
          };
        }],
        ['file_sha256', copy('sha256')], ['file_type', copyOr('file_type', 0)], ['tamper', copyOr('tamper', false)], ['tamper_sent', always(false)],
      ]);
    case 'regmod':
      return membersOf(type, [
        ['md5', processMd5], ['path', copy('path')], ['action', copy('action')], ['action_type', named('action', REGMOD_ACTIONS)],
        ['tamper', copyOr('tamper', false)], ['tamper_sent', always(false)],
      ]);
    case 'netconn':
      return membersOf(type, [
        ['md5', processMd5], ['protocol', copy('proto')], ['domain', copyOr('domain', '')], ['direction', copy('direction')],
        ['local_ip', copy('local_ip')], ['local_port', copy('local_port')], ['remote_ip', copy('remote_ip')], ['remote_port', copy('remote_port')],
        ['ipv4', copy('remote_ip')], ['port', copy('remote_port')],
        ['proxy', (at) => {
          const position = at('proxy_ip');
          return (rows, row, _chunk, out) => {
            out.appendBytes(rows.value(row, position) < 0 ? FALSE : TRUE);
            return true;
          };
        }],
        ['proxy_ip', copy('proxy_ip')], ['proxy_port', copy('proxy_port')], ['ja3', copy('ja3')], ['ja3s', copy('ja3s')],
      ]);
    case 'modload':
      return membersOf(type, [['path', copy('path')], ['md5', md5Of('md5')], ['sha256', copyOr('sha256', '')], ['command_line', always('')]]);
    case 'childproc':
      return membersOf(type, [
        ['created', whenStarted('true', 'false')], ['path', copy('path')], ['md5', md5Of('md5')], ['sha256', copyOr('sha256', '')],
        ['child_pid', copy('child_pid')], ['childproc_type', whenStarted('"ProcessStart"', '"ProcessEnd"')],
        ['childproc_commandline', copy('cmdline')], ['childproc_username', copy('username')], ['childproc_suppressed', copyOr('suppressed', false)],
        ['tamper', copyOr('tamper', false)], ['tamper_sent', always(false)],
        ['parent_guid', () => (_rows, _row, chunk, out) => {
          out.appendBytes(chunk.guid);
          return true;
        }],
      ]);
    case 'crossproc':
      return membersOf(type, [
        ['md5', processMd5], ['cross_process_type', named('action', CROSSPROC_TYPES)], ['is_target', copyOr('is_target', false)],
        ['target_md5', md5Of('target_md5')], ['target_sha256', copyOr('target_sha256', '')], ['target_path', copy('target_path')],
        ['target_pid', copy('target_pid')],
        ['target_create_time', (at) => {
          const position = at('target_start');
          return (rows, row, _chunk, out) => writeSeconds(rows, rows.value(row, position), out);
        }],
        ['requested_access', copy('access')],
        ['target_process_guid', (at) => {
          const [pid, start] = [at('target_pid'), at('target_start')];
          return (rows, row, chunk, out) => {
            const decoded = (position: number) => rows.decoded(rows.value(row, position)) as number;
            out.append(JSON.stringify(processId({ sensorId: chunk.sensorId, pid: decoded(pid), startMs: decoded(start) })));
            return true;
          };
        }],
      ]);
    case 'processblock':
      return membersOf(type, [
        ['md5', md5Of('blocked_md5')], ['path', copy('blocked_path')], ['command_line', copy('blocked_cmdline')],
        ['uid', copy('blocked_uid')], ['username', copy('blocked_username')], ['blocked_event', copy('block_event')],
        ['blocked_result', copy('block_result')], ['blocked_error', copy('block_error')], ['blocked_reason', copy('block_type')],
      ]);
  }
});

const TIMESTAMP = utf8('{"timestamp":');
const END = 125;

/** Writes the JSON record of event `row` of a chunk to `out`. */
export function writeRawEventJson(rows: ChunkRows, row: number, chunk: ChunkJson, out: BatchBytes): void {
  const code = rows.code(row);
  out.appendBytes(TIMESTAMP);
  // decodeEvent keeps a null time, which seconds() turns into 0.
  writeSeconds(rows, rows.raw(row, 1), out);
  out.appendBytes(chunk.common(code));
  for (const [prefix, write] of MEMBERS[code]!) {
    const before = out.length;
    out.appendBytes(prefix);
    if (!write(rows, row, chunk, out)) out.truncate(before);
  }
  out.appendByte(END);
}
