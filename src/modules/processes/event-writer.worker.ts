/**
 * The event writer's thread: it owns a connection to the SQLite file and the embedded event
 * store, and commits what the request thread sends it. SQLite work (inserts, index maintenance,
 * the commit) then runs beside the HTTP, parsing and preparation of the next uploads instead of
 * stalling them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteDatabase } from '../../db/dialects/sqlite.js';
import type { SegmentRules } from './event-store.js';
import { SqliteEventStore } from './event-store.sqlite.js';
import type { WriterError, WriterReply, WriterRequest } from './event-writer.messages.js';

export interface WriterInit {
  file: string;
  rules: SegmentRules;
}

const { file, rules } = workerData as WriterInit;
const db = SqliteDatabase.open(file);
/** Made at the first request, so that a schema it cannot work with fails requests, not the thread. */
let store: SqliteEventStore | undefined;
const port = parentPort!;

port.on('message', (request: WriterRequest) => {
  void handle(request).then(
    (reply) => port.postMessage(reply),
    (error: unknown) => port.postMessage({ id: request.id, error: describe(error) } satisfies WriterReply),
  );
});

/** Driver errors (SqliteError) do not survive the trip between threads as themselves. */
function describe(error: unknown): WriterError {
  const { message, code } = error as { message?: unknown; code?: unknown };
  return { message: String(message ?? error), code: typeof code === 'string' ? code : undefined };
}

async function handle(request: WriterRequest): Promise<WriterReply> {
  if (request.kind === 'close') {
    await db.close();
    return { id: request.id };
  }
  store ??= new SqliteEventStore(db, rules);
  switch (request.kind) {
    case 'commit':
      return { id: request.id, outcomes: await store.commit(request.batches) };
    case 'countRejection':
      await store.countRejection(request.sensorId, request.counters);
      return { id: request.id };
  }
}
