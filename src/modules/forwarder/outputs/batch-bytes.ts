/**
 * A batch's bytes, written into one reusable buffer record by record as each record's text is
 * made. The text of a batch of raw events (megabytes) then never lives as strings: each record's
 * text dies young, where the collector's work is least, instead of outliving collections with the
 * whole batch and being copied and promoted with it; raw events' JSON is copied here from the
 * stored chunk's bytes without becoming a string at all (docs/adr/0036-forwarder-thread.md).
 */
const FIRST_BYTES = 1 << 20;
const NEWLINE = 10;
const LOWER_A = 97;
const LOWER_Z = 122;
/** Shorter copies are made byte by byte: cheaper than the view and call a bulk copy costs. */
const BULK_COPY_BYTES = 64;

export class BatchBytes {
  private buffer: Buffer;
  private end = 0;

  constructor(firstBytes = FIRST_BYTES) {
    this.buffer = Buffer.allocUnsafe(firstBytes);
  }

  /** Bytes written since the last reset. */
  get length(): number {
    return this.end;
  }

  /** Starts a new batch: the bytes of the last one (and what bytes() returned) are overwritten. */
  reset(): this {
    this.end = 0;
    return this;
  }

  /** Drops what was written after the first `length` bytes. */
  truncate(length: number): void {
    this.end = Math.min(this.end, length);
  }

  append(text: string): void {
    // UTF-8 takes at most three bytes per UTF-16 code unit.
    this.reserve(text.length * 3);
    this.end += this.buffer.write(text, this.end);
  }

  /** Text known to hold only ASCII characters (a number's, say). */
  appendAscii(text: string): void {
    this.reserve(text.length);
    const { buffer } = this;
    let end = this.end;
    for (let i = 0; i < text.length; i++) buffer[end++] = text.charCodeAt(i);
    this.end = end;
  }

  /** Bytes `start` to `end` of `source` (all of it by default). */
  appendBytes(source: Uint8Array, start = 0, end = source.length): void {
    const length = end - start;
    this.reserve(length);
    const { buffer } = this;
    if (length >= BULK_COPY_BYTES) {
      buffer.set(source.subarray(start, end), this.end);
      this.end += length;
      return;
    }
    let at = this.end;
    for (let i = start; i < end; i++) buffer[at++] = source[i]!;
    this.end = at;
  }

  /** Upper-cases the ASCII letters written since `from`. */
  upperAscii(from: number): void {
    const { buffer } = this;
    for (let i = from; i < this.end; i++) {
      const c = buffer[i]!;
      if (c >= LOWER_A && c <= LOWER_Z) buffer[i] = c - 32;
    }
  }

  appendByte(byte: number): void {
    this.reserve(1);
    this.buffer[this.end++] = byte;
  }

  newline(): void {
    this.appendByte(NEWLINE);
  }

  /** The batch's bytes, valid until the next reset. */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.end);
  }

  private reserve(bytes: number): void {
    if (this.end + bytes <= this.buffer.length) return;
    const larger = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.end + bytes));
    this.buffer.copy(larger, 0, 0, this.end);
    this.buffer = larger;
  }
}
