/**
 * Raw events' JSON written from the stored chunk's own text. A chunk is the JSON text that
 * JSON.stringify made of positional rows (src/ingest/event-codec.ts), so the text of each value in
 * it is already what JSON.stringify writes for that value: most members of a record are copied
 * from it, and only those a record changes (times in seconds, upper-case MD5s, defaults, names
 * of codes) are computed. No event object, record object or stringify per event: decoding and
 * stringifying, and the garbage they left, were most of what the forwarder's thread did
 * (docs/adr/0036-forwarder-thread.md). The text is byte for byte JSON.stringify of
 * rawEventRecord (forwarder-raw-text.property.test.ts holds the two to that).
 */
import { processId } from '../../domain/process-id.js';
import { STORED_FIELDS, STORED_TYPES } from '../../ingest/event-codec.js';
import type { SensorEvent } from '../../ingest/event.schemas.js';
import { CROSSPROC_TYPES, FILEMOD_ACTIONS, REGMOD_ACTIONS } from './forwarder-records.js';

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN = 91;
const CLOSE = 93;
const LETTER_N = 110;
const ZERO = 48;

/**
 * Where each value of each row lies in a chunk's text; found in one pass, without parsing. The
 * offsets are kept in typed arrays, outside the collected heap: as arrays of numbers they were
 * most of what a batch left for the collector to copy while it was on its way.
 */
export class ChunkRows {
  /** Scratch for the offsets of the chunk being located, grown as needed and copied out at the end. */
  private static scratchBounds: Int32Array = new Int32Array(4096);
  private static scratchFirsts: Int32Array = new Int32Array(256);

  private constructor(
    readonly text: string,
    /** Token i spans text[bounds[2i], bounds[2i + 1]). */
    private readonly bounds: Int32Array,
    /** Row r's tokens are firsts[r] … firsts[r + 1] - 1. */
    private readonly firsts: Int32Array,
  ) {}

  /** The rows of `text`; undefined when it is not the flat rows of known types that encodeChunk writes. */
  static locate(text: string): ChunkRows | undefined {
    let bounds = ChunkRows.scratchBounds;
    let firsts = ChunkRows.scratchFirsts;
    let tokens = 0;
    let rowCount = 0;
    if (text.charCodeAt(0) !== OPEN) return undefined;
    let i = 1;
    if (text.charCodeAt(i) === CLOSE) i++;
    else {
      for (;;) {
        if (text.charCodeAt(i++) !== OPEN) return undefined;
        if (rowCount + 2 > firsts.length) firsts = ChunkRows.scratchFirsts = grown(firsts);
        firsts[rowCount++] = tokens;
        for (;;) {
          const start = i;
          i = text.charCodeAt(i) === QUOTE ? afterString(text, i + 1) : afterScalar(text, i);
          if (i <= start) return undefined;
          if (2 * tokens + 2 > bounds.length) bounds = ChunkRows.scratchBounds = grown(bounds);
          bounds[2 * tokens] = start;
          bounds[2 * tokens + 1] = i;
          tokens++;
          const next = text.charCodeAt(i++);
          if (next === CLOSE) break;
          if (next !== COMMA) return undefined;
        }
        const next = text.charCodeAt(i++);
        if (next === CLOSE) break;
        if (next !== COMMA) return undefined;
      }
    }
    if (i !== text.length) return undefined;
    firsts[rowCount] = tokens;
    const rows = new ChunkRows(text, bounds.slice(0, 2 * tokens), firsts.slice(0, rowCount + 1));
    for (let r = 0; r < rows.count; r++) {
      if (firsts[r + 1]! - firsts[r]! < 2 || STORED_TYPES[rows.code(r)] === undefined) return undefined;
    }
    return rows;
  }

  get count(): number {
    return this.firsts.length - 1;
  }

  code(row: number): number {
    return Number(this.raw(row, 0));
  }

  /** The text of value `position` of `row` (0 the type code, 1 the time, 2 … the fields), `null` included; undefined past the row's end. */
  raw(row: number, position: number): string | undefined {
    const token = this.firsts[row]! + position;
    if (token >= this.firsts[row + 1]!) return undefined;
    return this.text.slice(this.bounds[2 * token], this.bounds[2 * token + 1]);
  }

  /** The text of a value that is there: undefined when absent or null, as decodeEvent leaves such fields out. */
  value(row: number, position: number): string | undefined {
    const token = this.firsts[row]! + position;
    if (token >= this.firsts[row + 1]!) return undefined;
    const start = this.bounds[2 * token]!;
    // The only JSON value that starts with an n.
    return this.text.charCodeAt(start) === LETTER_N ? undefined : this.text.slice(start, this.bounds[2 * token + 1]);
  }

  /** Row `row` alone, as JSON text of its array. */
  rowText(row: number): string {
    return this.text.slice(this.bounds[2 * this.firsts[row]!]! - 1, this.bounds[2 * this.firsts[row + 1]! - 1]! + 1);
  }
}

function grown(array: Int32Array): Int32Array {
  const larger = new Int32Array(array.length * 2);
  larger.set(array);
  return larger;
}

/** The index just past the closing quote of a string whose text starts at `from`; -1 when unclosed. */
function afterString(text: string, from: number): number {
  for (let at = from; ;) {
    const quote = text.indexOf('"', at);
    if (quote < 0) return -1;
    let before = quote - 1;
    while (text.charCodeAt(before) === BACKSLASH) before--;
    if ((quote - 1 - before) % 2 === 0) return quote + 1;
    at = quote + 1;
  }
}

function afterScalar(text: string, from: number): number {
  let i = from;
  for (let c = text.charCodeAt(i); i < text.length && c !== COMMA && c !== CLOSE; c = text.charCodeAt(++i));
  return i;
}

/** What the records of one chunk share, as JSON text made once per chunk. */
export interface ChunkJson {
  /** For a type code: the members from `cb_server` to `process_path`, each with a comma before it. */
  common(code: number): string;
  /** The process's MD5, upper case. */
  processMd5: string;
  guid: string;
  sensorId: number;
}

type Write = (rows: ChunkRows, row: number, chunk: ChunkJson) => string | undefined;

/** A value's JSON as rawEventRecord's expression `f` makes it from the decoded value: the way for whatever the fast ways do not cover. */
function viaValue(text: string | undefined, f: (value: unknown) => unknown): string | undefined {
  return JSON.stringify(f(text === undefined ? undefined : JSON.parse(text)));
}

const isNumber = (text: string) => {
  const c = text.charCodeAt(0);
  return (c >= 48 && c <= 57) || c === 45;
};

/** seconds(value) of a value's text, as a number. */
export function secondsOf(text: string): number {
  return (isNumber(text) ? Number(text) : JSON.parse(text)) / 1000;
}

/** Digits of a whole number of milliseconds whose seconds are written by moving the decimal point. */
const DIGITS = /^[1-9][0-9]{3,14}$/;

/**
 * seconds(value): epoch milliseconds to seconds. Up to 15 digits, value / 1000 is the double
 * nearest that decimal, and String writes it as the decimal itself (every decimal of 15
 * significant digits or fewer round-trips), so the point is moved in the text: String's
 * shortest-digits search was a tenth of writing a record.
 */
export function secondsText(text: string | undefined): string | undefined {
  if (text !== undefined && DIGITS.test(text)) {
    const point = text.length - 3;
    const fraction = text.charCodeAt(text.length - 1) !== ZERO ? text.slice(point)
      : text.charCodeAt(text.length - 2) !== ZERO ? text.slice(point, -1)
        : text.charCodeAt(point) !== ZERO ? text.slice(point, -2) : '';
    return fraction === '' ? text.slice(0, point) : `${text.slice(0, point)}.${fraction}`;
  }
  if (text !== undefined && isNumber(text)) {
    const seconds = Number(text) / 1000;
    return Number.isFinite(seconds) ? String(seconds) : 'null';
  }
  return viaValue(text, (value) => (value as number) / 1000);
}

const upperMd5 = (md5: unknown) => (md5 && (md5 as string).length === 32 ? (md5 as string).toUpperCase() : md5 ?? '');

/** upperMd5(value): a 32-character string without escapes is upper-cased as it stands. */
function upperMd5Text(text: string | undefined): string | undefined {
  if (text === undefined) return '""';
  if (text.length === 34 && text.charCodeAt(0) === QUOTE && !text.includes('\\')) return text.toUpperCase();
  return viaValue(text, upperMd5);
}

/** A name table's JSON by the JSON of its keys. */
function lookupText(table: Readonly<Record<string, unknown>>): (text: string | undefined) => string | undefined {
  const known = new Map(Object.entries(table).map(([key, value]) => [JSON.stringify(key), JSON.stringify(value)]));
  return (text) => (text !== undefined && known.get(text)) || viaValue(text, (value) => table[value as string]);
}

/** The members of one type's record after the common ones, in rawEventRecord's order. */
function membersOf(type: SensorEvent['type'], spec: readonly (readonly [key: string, write: (at: (field: string) => number) => Write])[]) {
  const fields = STORED_FIELDS[STORED_TYPES.indexOf(type)]!;
  const at = (field: string) => {
    const index = fields.indexOf(field);
    if (index < 0) throw new Error(`${type} stores no ${field}`);
    return index + 2;
  };
  return spec.map(([key, write]) => [`,${JSON.stringify(key)}:`, write(at)] as const);
}

const copy = (field: string) => (at: (field: string) => number): Write => {
  const position = at(field);
  return (rows, row) => rows.value(row, position);
};
const copyOr = (field: string, fallback: unknown) => (at: (field: string) => number): Write => {
  const position = at(field);
  const text = JSON.stringify(fallback);
  return (rows, row) => rows.value(row, position) ?? text;
};
const md5Of = (field: string) => (at: (field: string) => number): Write => {
  const position = at(field);
  return (rows, row) => upperMd5Text(rows.value(row, position));
};
const named = (field: string, table: Readonly<Record<string, unknown>>) => (at: (field: string) => number): Write => {
  const position = at(field);
  const lookup = lookupText(table);
  return (rows, row) => lookup(rows.value(row, position));
};
const always = (value: unknown) => (): Write => {
  const text = JSON.stringify(value);
  return () => text;
};
const processMd5: () => Write = () => (_rows, _row, chunk) => chunk.processMd5;
/** childproc's action compared as stored: JSON.stringify writes 'start' only so. */
const whenStarted = (started: string, ended: string) => (at: (field: string) => number): Write => {
  const position = at('action');
  return (rows, row) => (rows.value(row, position) === '"start"' ? started : ended);
};

const MEMBERS: readonly (readonly (readonly [prefix: string, write: Write])[])[] = STORED_TYPES.map((type) => {
  switch (type) {
    case 'process_start':
      return membersOf(type, [
        ['path', copy('path')], ['md5', md5Of('md5')], ['sha256', copyOr('sha256', '')], ['command_line', copyOr('cmdline', '')],
        ['parent_path', copyOr('parent_path', '')], ['parent_pid', copyOr('parent_pid', -1)],
        ['parent_create_time', (at) => {
          const position = at('parent_start');
          return (rows, row) => {
            const text = rows.value(row, position);
            return text === undefined ? '0' : secondsText(text);
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
          return (rows, row) => {
            const text = rows.value(row, position);
            return text === undefined ? undefined : upperMd5Text(text);
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
          return (rows, row) => (rows.value(row, position) === undefined ? 'false' : 'true');
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
        ['tamper', copyOr('tamper', false)], ['tamper_sent', always(false)], ['parent_guid', () => (_rows, _row, chunk) => chunk.guid],
      ]);
    case 'crossproc':
      return membersOf(type, [
        ['md5', processMd5], ['cross_process_type', named('action', CROSSPROC_TYPES)], ['is_target', copyOr('is_target', false)],
        ['target_md5', md5Of('target_md5')], ['target_sha256', copyOr('target_sha256', '')], ['target_path', copy('target_path')],
        ['target_pid', copy('target_pid')],
        ['target_create_time', (at) => {
          const position = at('target_start');
          return (rows, row) => secondsText(rows.value(row, position));
        }],
        ['requested_access', copy('access')],
        ['target_process_guid', (at) => {
          const [pid, start] = [at('target_pid'), at('target_start')];
          return (rows, row, chunk) => {
            const decoded = (position: number) => {
              const text = rows.value(row, position);
              return (text === undefined ? undefined : JSON.parse(text)) as number;
            };
            return JSON.stringify(processId({ sensorId: chunk.sensorId, pid: decoded(pid), startMs: decoded(start) }));
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

/** The JSON record of event `row` of a chunk. */
export function rawEventJson(rows: ChunkRows, row: number, chunk: ChunkJson): string {
  const code = rows.code(row);
  // decodeEvent keeps a null time, which seconds() turns into 0.
  let text = `{"timestamp":${secondsText(rows.raw(row, 1))}${chunk.common(code)}`;
  for (const [prefix, write] of MEMBERS[code]!) {
    const value = write(rows, row, chunk);
    if (value !== undefined) text += prefix + value;
  }
  return `${text}}`;
}

