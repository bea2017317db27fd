import { Writable } from 'node:stream';

/** A stand-in for stdout, or for a log's destination, that says whether it is a terminal and keeps what was written. */
export class CapturedOutput extends Writable {
  text = '';
  constructor(readonly isTTY: boolean) {
    super();
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}
