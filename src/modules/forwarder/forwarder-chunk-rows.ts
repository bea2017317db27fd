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

/** Where each value of each row lies in a chunk's bytes; found in one pass, without parsing. */
export class ChunkRows {
  private constructor(
    readonly bytes: Buffer,
    /** Token i spans bytes[bounds[2i], bounds[2i + 1]). */
    private readonly bounds: number[],
    /** Row r's tokens are firsts[r] … firsts[r + 1] - 1. */
    private readonly firsts: number[],
    private readonly codes: number[],
  ) {}

  /** The rows of `bytes`; undefined when they are not the flat rows of known types that encodeChunk writes. */
  static locate(bytes: Buffer): ChunkRows | undefined {
    // Scanned as Latin-1, whose characters are the bytes, so that a string's end is found by the
    // engine's own search; no byte of a multi-byte UTF-8 character is a quote, comma or bracket.
    const text = bytes.toString('latin1');
    const bounds: number[] = [];
    const firsts: number[] = [];
    if (text.charCodeAt(0) !== OPEN) return undefined;
    let i = 1;
    if (text.charCodeAt(i) === CLOSE) i++;
    else {
      for (;;) {
        if (text.charCodeAt(i++) !== OPEN) return undefined;
        firsts.push(bounds.length / 2);
        for (;;) {
          const start = i;
          i = text.charCodeAt(i) === QUOTE ? afterString(text, i + 1) : afterScalar(text, i);
          if (i <= start) return undefined;
          bounds.push(start, i);
          const next = text.charCodeAt(i++);
          if (next === CLOSE) break;
          if (next !== COMMA) return undefined;
        }
        const next = text.charCodeAt(i++);
        if (next === CLOSE) break;
        if (next !== COMMA) return undefined;
      }
    }
    if (i !== bytes.length) return undefined;
    firsts.push(bounds.length / 2);
    const codes: number[] = [];
    for (let r = 0; r + 1 < firsts.length; r++) {
      const code = numberAt(bytes, bounds[2 * firsts[r]!]!, bounds[2 * firsts[r]! + 1]!);
      if (firsts[r + 1]! - firsts[r]! < 2 || STORED_TYPES[code] === undefined) return undefined;
      codes.push(code);
    }
    return new ChunkRows(bytes, bounds, firsts, codes);
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
