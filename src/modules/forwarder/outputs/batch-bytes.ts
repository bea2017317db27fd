/**
 * A batch's bytes, written into one reusable buffer record by record as each record's text is
 * made. The text of a batch of raw events (megabytes) then never lives as strings: each record's
 * text dies young, where the collector's work is least, instead of outliving collections with the
 * whole batch and being copied and promoted with it (docs/adr/0036-forwarder-thread.md).
 */
const FIRST_BYTES = 1 << 20;
const NEWLINE = 10;

export class BatchBytes {
  private buffer = Buffer.allocUnsafe(FIRST_BYTES);
  private end = 0;

  /** Bytes written since the last reset. */
  get length(): number {
    return this.end;
  }

  /** Starts a new batch: the bytes of the last one (and what bytes() returned) are overwritten. */
  reset(): this {
    this.end = 0;
    return this;
  }

  append(text: string): void {
    // UTF-8 takes at most three bytes per UTF-16 code unit.
    this.reserve(text.length * 3);
    this.end += this.buffer.write(text, this.end);
  }

  appendLine(text: string): void {
    this.append(text);
    this.reserve(1);
    this.buffer[this.end++] = NEWLINE;
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
