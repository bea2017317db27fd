/**
 * The PostgreSQL event writer's thread: it owns connections of its own to the database and the
 * PostgreSQL event store, so the store's pass in memory (process and segment rows, deflated
 * chunks, binary COPY payloads) runs beside the HTTP, parsing and preparation of the next uploads
 * instead of on the request thread, as the embedded store's writer does (event-writer.worker.ts).
 */
import { workerData } from 'node:worker_threads';
import { PostgresDatabase } from '../../db/dialects/postgres.js';
import { serveRequests } from '../../db/worker-threads.js';
import type { SegmentRules } from '../../ingest/event-store.js';
import { PostgresEventStore } from './event-store.postgres.js';
import type { PostgresWriterRequest, WriterReply } from './event-writer.messages.js';

export interface PostgresWriterInit {
  url: string;
  rules: SegmentRules;
  statementTimeoutMs?: number | undefined;
  applicationName?: string | undefined;
}

/**
 * Overlapping commits hold two connections (one preparing, one finishing); a third lets a commit
 * that failed be abandoned while the next ones take theirs.
 */
const WRITER_CONNECTIONS = 3;

const { url, rules, statementTimeoutMs, applicationName } = workerData as PostgresWriterInit;
const db = PostgresDatabase.open(url, { poolSize: WRITER_CONNECTIONS, statementTimeoutMs, applicationName });
const store = new PostgresEventStore(db, rules);

serveRequests<PostgresWriterRequest, WriterReply>(async (request) => {
  switch (request.kind) {
    case 'commit':
      return { outcomes: await store.commit(request.batches) };
    case 'ready':
      await store.readyForNext();
      return {};
    case 'countRejection':
      await store.countRejection(request.sensorId, request.counters);
      return {};
    case 'close':
      await store.close();
      await db.close();
      return {};
  }
});
