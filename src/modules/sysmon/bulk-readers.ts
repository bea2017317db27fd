/**
 * Where `_bulk` bodies are read: on a small pool of threads (config `sysmonReaderThreads`), so the
 * request thread, which also runs HTTP, TLS and the ingest pipeline, only settles what they read
 * and answers; with no threads, on the request thread itself. Threads start with the first body.
 */
import type { WorkerReply } from '../../db/worker-threads.js';
import { WorkerClient } from '../../db/worker-threads.js';
import { IngestRejection, type BatchRejectionReason } from '../../ingest/rejection.js';
import { readBulk, type ReadBulk } from '../../ingest/sysmon/bulk-read.js';

export type BulkReadRequest =
  | { id: number; kind: 'read'; raw: ArrayBuffer; contentEncoding: string | undefined; maxDecodedBytes: number; nowMs: number }
  | { id: number; kind: 'close' };

export interface BulkReadReply extends WorkerReply {
  json?: string;
  rejection?: { reason: BatchRejectionReason; message: string };
}

export class BulkReaders {
  private readers: { client: WorkerClient<BulkReadRequest, BulkReadReply>; busy: number }[] = [];

  constructor(private readonly threads: number, private readonly maxDecodedBytes: number) {}

  async read(raw: Buffer, contentEncoding: string | undefined, nowMs: number): Promise<ReadBulk> {
    if (this.threads === 0) return readBulk(raw, contentEncoding, this.maxDecodedBytes, nowMs);
    const reader = this.leastBusy();
    reader.busy++;
    try {
      const bytes = ownBuffer(raw);
      const reply = await reader.client.request({ kind: 'read', raw: bytes, contentEncoding, maxDecodedBytes: this.maxDecodedBytes, nowMs }, [bytes]);
      if (reply.rejection) throw new IngestRejection(reply.rejection.reason, reply.rejection.message);
      return JSON.parse(reply.json!) as ReadBulk;
    } finally {
      reader.busy--;
    }
  }

  async close(): Promise<void> {
    const readers = this.readers;
    this.readers = [];
    await Promise.all(readers.map(({ client }) => client.close()));
  }

  private leastBusy() {
    if (this.readers.length < this.threads) {
      const reader = { client: new WorkerClient<BulkReadRequest, BulkReadReply>(import.meta.url, 'bulk-reader', {}), busy: 0 };
      this.readers.push(reader);
      return reader;
    }
    return this.readers.reduce((least, reader) => (reader.busy < least.busy ? reader : least));
  }
}

/**
 * The body's bytes in an ArrayBuffer of their own, to hand over without a copy; a body that shares
 * its memory with others (Node pools small buffers) is copied first.
 */
function ownBuffer(raw: Buffer): ArrayBuffer {
  if (raw.byteOffset === 0 && raw.byteLength === raw.buffer.byteLength && raw.buffer instanceof ArrayBuffer) return raw.buffer;
  return new Uint8Array(raw).buffer;
}
