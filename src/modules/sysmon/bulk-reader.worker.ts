/**
 * A bulk reader thread (bulk-readers.ts): reads `_bulk` bodies as far as they can be read without
 * the server's state, hands their events to the event writer when asked to, and answers the rest
 * as JSON text, which the request thread parses faster than it would deserialize the same objects.
 */
import { workerData } from 'node:worker_threads';
import { serveRequests } from '../../db/worker-threads.js';
import { IngestRejection } from '../../ingest/rejection.js';
import { handOverEvents } from '../../ingest/sysmon/bulk-hand-over.js';
import { readBulk } from '../../ingest/sysmon/bulk-read.js';
import type { BulkReaderInit, BulkReadReply, BulkReadRequest } from './bulk-readers.js';

const { writerPort } = workerData as BulkReaderInit;

serveRequests<BulkReadRequest, BulkReadReply>(async (request) => {
  if (request.kind === 'close') return {};
  try {
    const read = await readBulk(Buffer.from(request.raw), request.contentEncoding, request.maxDecodedBytes, request.nowMs);
    return { json: JSON.stringify(request.handOver && writerPort ? handOverEvents(read, writerPort) : read) };
  } catch (error) {
    if (error instanceof IngestRejection) return { rejection: { reason: error.batchReason, message: error.message } };
    throw error;
  }
});
