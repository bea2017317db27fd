/**
 * Where the values of a stored chunk's rows lie in its bytes. A chunk is the UTF-8 of the JSON
 * text that JSON.stringify made of positional rows (src/ingest/event-codec.ts): one pass over the
 * bytes finds each value without parsing, so that a record's writer (forwarder-raw-json.ts) can
 * copy the bytes of most values as they are.
 */
import type { BatchBytes } from './outputs/batch-bytes.js';
import { STORED_TYPES } from '../../ingest/event-codec.js';

export const QUOTE = 34;
export const BACKSLASH = 92;
const COMMA = 44;
const OPEN = 91;
const CLOSE = 93;
const LETTER_N = 110;
export const DIGIT_0 = 48;
export const DIGIT_9 = 57;
export const MINUS = 45;

/** Where each row's values lie, grown as needed and copied out per chunk: one pass makes no garbage per value. */
let scratch: Int32Array = new Int32Array(4096);

/** Where each value of each row lies in a chunk's bytes; found in one pass, without parsing. */
export class ChunkRows {
  private constructor(
    readonly bytes: Buffer,
    /** Token i spans bytes[bounds[2i], bounds[2i + 1]). */
    private readonly bounds: Int32Array,
    /** Row r's tokens are firsts[r] … firsts[r + 1] - 1. */
    private readonly firsts: Int32Array,
    private readonly codes: Uint8Array,
  ) {}

  /** The rows of `bytes`; undefined when they are not the flat rows of known types that encodeChunk writes. */
  static locate(bytes: Buffer): ChunkRows | undefined {
    const firsts: number[] = [];
    let tokens = 0;
    if (bytes[0] !== OPEN) return undefined;
    let i = 1;
    if (bytes[i] === CLOSE) i++;
    else {
      for (;;) {
        if (bytes[i++] !== OPEN) return undefined;
        firsts.push(tokens);
        for (;;) {
          const start = i;
          i = bytes[i] === QUOTE ? afterString(bytes, i + 1) : afterScalar(bytes, i);
          if (i <= start) return undefined;
          if (2 * tokens + 2 > scratch.length) scratch = grown(scratch);
          scratch[2 * tokens] = start;
          scratch[2 * tokens + 1] = i;
          tokens++;
          const next = bytes[i++];
          if (next === CLOSE) break;
          if (next !== COMMA) return undefined;
        }
        const next = bytes[i++];
        if (next === CLOSE) break;
        if (next !== COMMA) return undefined;
      }
    }
    if (i !== bytes.length) return undefined;
    firsts.push(tokens);
    const codes = new Uint8Array(firsts.length - 1);
    for (let r = 0; r < codes.length; r++) {
      const code = numberAt(bytes, scratch[2 * firsts[r]!]!, scratch[2 * firsts[r]! + 1]!);
      if (firsts[r + 1]! - firsts[r]! < 2 || STORED_TYPES[code] === undefined) return undefined;
      codes[r] = code;
    }
    return new ChunkRows(bytes, scratch.slice(0, 2 * tokens), Int32Array.from(firsts), codes);
  }

  get count(): number {
    return this.codes.length;
  }

  code(row: number): number {
    return this.codes[row]!;
  }

  /** The token of value `position` of `row` (0 the type code, 1 the time, 2 … the fields), `null` included; -1 past the row's end. */
  raw(row: number, position: number): number {
    const token = this.firsts[row]! + position;
    return token < this.firsts[row + 1]! ? token : -1;
  }

  /** The token of a value that is there: -1 when absent or null, as decodeEvent leaves such fields out. */
  value(row: number, position: number): number {
    const token = this.raw(row, position);
    // The only JSON value that starts with an n.
    return token < 0 || this.bytes[this.bounds[2 * token]!] === LETTER_N ? -1 : token;
  }

  start(token: number): number {
    return this.bounds[2 * token]!;
  }

  end(token: number): number {
    return this.bounds[2 * token + 1]!;
  }

  /** The value of a token, decoded (undefined for -1). */
  decoded(token: number): unknown {
    return token < 0 ? undefined : JSON.parse(this.bytes.toString('utf8', this.start(token), this.end(token)));
  }

  /** Copies a token's bytes to `out`. */
  copy(token: number, out: BatchBytes): void {
    out.appendBytes(this.bytes, this.start(token), this.end(token));
  }

  /** Whether a token's bytes are `expected`'s. */
  equals(token: number, expected: Uint8Array): boolean {
    const start = this.start(token);
    if (this.end(token) - start !== expected.length) return false;
    for (let i = 0; i < expected.length; i++) if (this.bytes[start + i] !== expected[i]) return false;
    return true;
  }

  /** A token's number as Number() reads it. */
  number(token: number): number {
    return numberAt(this.bytes, this.start(token), this.end(token));
  }
}

function grown(array: Int32Array): Int32Array {
  const larger = new Int32Array(array.length * 2);
  larger.set(array);
  return larger;
}

/** Number() of the text of bytes[start, end): integers of up to 15 digits read in place. */
function numberAt(bytes: Buffer, start: number, end: number): number {
  const negative = bytes[start] === MINUS;
  const from = negative ? start + 1 : start;
  if (end > from && end - from <= 15) {
    let n = 0;
    let i = from;
    for (; i < end; i++) {
      const c = bytes[i]!;
      if (c < DIGIT_0 || c > DIGIT_9) break;
      n = n * 10 + (c - DIGIT_0);
    }
    if (i === end) return negative ? -n : n;
  }
  return Number(bytes.toString('utf8', start, end));
}

/** The index just past the closing quote of a string whose text starts at `from`; -1 when unclosed. */
function afterString(bytes: Uint8Array, from: number): number {
  for (let i = from; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === QUOTE) return i + 1;
    if (c === BACKSLASH) i++;
  }
  return -1;
}

function afterScalar(bytes: Uint8Array, from: number): number {
  let i = from;
  for (let c = bytes[i]; i < bytes.length && c !== COMMA && c !== CLOSE; c = bytes[++i]);
  return i;
}
