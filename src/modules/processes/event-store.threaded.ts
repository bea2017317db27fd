/**
 * The embedded event store run on its own thread (event-writer.worker.ts). To the pipeline it is
 * an EventStore like any other: a commit resolves once the writer thread has committed it.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { EventStore, IngestBatch, IngestOutcome, SegmentRules } from './event-store.js';
import type { WriterReply, WriterRequest } from './event-writer.messages.js';
import type { WriterInit } from './event-writer.worker.js';

type Request = WriterRequest extends infer R ? (R extends WriterRequest ? Omit<R, 'id'> : never) : never;

interface Waiting {
  resolve: (reply: WriterReply) => void;
  reject: (error: unknown) => void;
}

/** The worker's file beside this one: .ts when run from source (tests, through tsx), .js when built. */
const FROM_SOURCE = extname(fileURLToPath(import.meta.url)) === '.ts';
const WORKER_URL = new URL(`./event-writer.worker${FROM_SOURCE ? '.ts' : '.js'}`, import.meta.url);

/**
 * Node loads a worker's entry file before tsx's loader hooks are in place in that thread
 * (privatenumber/tsx#354), so from source the entry is a one-line script that imports the
 * TypeScript file once they are.
 */
function startWorker(workerData: WriterInit): Worker {
  if (!FROM_SOURCE) return new Worker(WORKER_URL, { workerData });
  const entry = `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER_URL.href)}); })`;
  return new Worker(entry, { eval: true, workerData });
}

export class ThreadedEventStore implements EventStore {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private failure: Error | undefined;

  constructor(file: string, rules: SegmentRules) {
    this.worker = startWorker({ file, rules });
    this.worker.on('message', (reply: WriterReply) => {
      const waiting = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (reply.error === undefined) waiting?.resolve(reply);
      else waiting?.reject(Object.assign(new Error(`event writer: ${reply.error.message}`), { code: reply.error.code }));
    });
    // A writer that died takes no more work: every pending and later call fails (the uploads get
    // a 5xx and the sensors retry against a restarted server).
    const fail = (error: Error) => {
      this.failure = error;
      for (const waiting of this.waiting.values()) waiting.reject(error);
      this.waiting.clear();
    };
    this.worker.on('error', (error) => fail(error instanceof Error ? error : new Error(`event writer: ${JSON.stringify(error)}`)));
    this.worker.on('exit', (code) => fail(new Error(`the event writer thread exited (${code})`)));
  }

  async commit(batches: readonly IngestBatch[]): Promise<IngestOutcome[]> {
    return (await this.request({ kind: 'commit', batches })).outcomes!;
  }

  async countRejection(sensorId: number, counters: ReadonlyMap<string, number>): Promise<void> {
    await this.request({ kind: 'countRejection', sensorId, counters });
  }

  async close(): Promise<void> {
    if (this.failure) return;
    await this.request({ kind: 'close' });
    await this.worker.terminate();
  }

  private request(request: Request): Promise<WriterReply> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ ...request, id });
    });
  }
}
