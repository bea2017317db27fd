/**
 * Where `_bulk` bodies are read: on a small pool of threads (config `sysmonReaderThreads`), so the
 * request thread, which also runs HTTP, TLS and the ingest pipeline, only settles what they read
 * and answers; with no threads, on the request thread itself. Threads start with the first body.
 * Given a port to the event store's writer per thread, a thread also prepares the body's events
 * and hands them to the writer itself when asked to (bulk-hand-over.ts, ADR 0035).
 */
import type { MessagePort } from 'node:worker_threads';
import type { WorkerReply } from '../../db/worker-threads.js';
import { WorkerClient } from '../../db/worker-threads.js';
import { IngestRejection, type BatchRejectionReason } from '../../ingest/rejection.js';
import type { HandedOverBulk } from '../../ingest/sysmon/bulk-hand-over.js';
import { readBulk } from '../../ingest/sysmon/bulk-read.js';

export type BulkReadRequest =
  | { id: number; kind: 'read'; raw: ArrayBuffer; contentEncoding: string | undefined; maxDecodedBytes: number; nowMs: number; handOver: boolean }
  | { id: number; kind: 'close' };

export interface BulkReaderInit {
  writerPort: MessagePort | undefined;
}

export interface BulkReadReply extends WorkerReply {
  json?: string;
  rejection?: { reason: BatchRejectionReason; message: string };
}

export class BulkReaders {
  private readers: { client: WorkerClient<BulkReadRequest, BulkReadReply>; busy: number }[] = [];

  constructor(
    private readonly threads: number,
    private readonly maxDecodedBytes: number,
    /** A new port to the event store's writer, when it takes batches handed over. */
    private readonly writerPort?: () => MessagePort,
  ) {}

  /** Whether read() can hand events over to the writer. */
  get handOver(): boolean {
    return this.threads > 0 && this.writerPort !== undefined;
  }

  /** `handOver`: the events go to the writer (when this.handOver), no ingress filter being in force. */
  async read(raw: Buffer, contentEncoding: string | undefined, nowMs: number, handOver = false): Promise<HandedOverBulk> {
    if (this.threads === 0) return readBulk(raw, contentEncoding, this.maxDecodedBytes, nowMs);
    const reader = this.leastBusy();
    reader.busy++;
    try {
      const bytes = ownBuffer(raw);
      const reply = await reader.client.request({
        kind: 'read', raw: bytes, contentEncoding, maxDecodedBytes: this.maxDecodedBytes, nowMs, handOver: handOver && this.handOver,
      }, [bytes]);
      if (reply.rejection) throw new IngestRejection(reply.rejection.reason, reply.rejection.message);
      return JSON.parse(reply.json!) as HandedOverBulk;
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
      const writerPort = this.writerPort?.();
      const init: BulkReaderInit = { writerPort };
      const client = new WorkerClient<BulkReadRequest, BulkReadReply>(import.meta.url, 'bulk-reader', init, { transferList: writerPort ? [writerPort] : [] });
      const reader = { client, busy: 0 };
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
