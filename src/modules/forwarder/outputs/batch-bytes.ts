/**
 * A batch's bytes, written into one reusable buffer record by record as each record's text is
 * made. The text of a batch of raw events (megabytes) then never lives as strings: each record's
 * text dies young, where the collector's work is least, instead of outliving collections with the
 * whole batch and being copied and promoted with it (docs/adr/0036-forwarder-thread.md).
 * Short texts are joined as strings first and encoded a few kilobytes at a time: one
 * Buffer.write per record was a tenth of the forwarder's thread, most of it the call itself.
 */
const FIRST_BYTES = 1 << 20;
/** Characters joined before they are encoded into the buffer. */
const PENDING_CHARS = 16_384;

export class BatchBytes {
  private buffer = Buffer.allocUnsafe(FIRST_BYTES);
  private end = 0;
  private pending = '';

  /** Starts a new batch: the bytes of the last one (and what bytes() returned) are overwritten. */
  reset(): this {
    this.end = 0;
    this.pending = '';
    return this;
  }

  append(text: string): void {
    this.pending += text;
    if (this.pending.length >= PENDING_CHARS) this.flush();
  }

  appendLine(text: string): void {
    this.append(`${text}\n`);
  }

  /** The batch's bytes, valid until the next reset. */
  bytes(): Buffer {
    this.flush();
    return this.buffer.subarray(0, this.end);
  }

  private flush(): void {
    // UTF-8 takes at most three bytes per UTF-16 code unit.
    this.reserve(this.pending.length * 3);
    this.end += this.buffer.write(this.pending, this.end);
    this.pending = '';
  }

  private reserve(bytes: number): void {
    if (this.end + bytes <= this.buffer.length) return;
    const larger = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.end + bytes));
    this.buffer.copy(larger, 0, 0, this.end);
    this.buffer = larger;
  }
}
