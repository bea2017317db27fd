/**
 * A bulk reader thread (bulk-readers.ts): reads `_bulk` bodies as far as they can be read without
 * the server's state, and answers the result as JSON text, which the request thread parses faster
 * than it would deserialize the same objects.
 */
import { serveRequests } from '../../db/worker-threads.js';
import { IngestRejection } from '../../ingest/rejection.js';
import { readBulk } from '../../ingest/sysmon/bulk-read.js';
import type { BulkReadReply, BulkReadRequest } from './bulk-readers.js';

serveRequests<BulkReadRequest, BulkReadReply>(async (request) => {
  if (request.kind === 'close') return {};
  try {
    const read = await readBulk(Buffer.from(request.raw), request.contentEncoding, request.maxDecodedBytes, request.nowMs);
    return { json: JSON.stringify(read) };
  } catch (error) {
    if (error instanceof IngestRejection) return { rejection: { reason: error.batchReason, message: error.message } };
    throw error;
  }
});
