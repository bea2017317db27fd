/** For tests: answers every request with the heap limit V8 enforces in this thread. */
import { getHeapStatistics } from 'node:v8';
import { serveRequests, type WorkerReply } from '../../src/db/worker-threads.js';

export interface HeapLimitReply extends WorkerReply {
  heapSizeLimit?: number;
}

serveRequests<{ id: number; kind: string }, HeapLimitReply>(async (request) => {
  if (request.kind === 'close') return {};
  return { heapSizeLimit: getHeapStatistics().heap_size_limit };
});
