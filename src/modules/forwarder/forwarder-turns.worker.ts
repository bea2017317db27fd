/**
 * The forwarder's thread: its own connection to the configured database (the SQLite file, or
 * PostgreSQL), the sources read through it, and the outputs' turns (forwarder-turns.ts). The
 * request thread keeps the outputs' leases and asks for turn after turn.
 */
import { workerData } from 'node:worker_threads';
import type { SqlDatabase } from '../../db/database.js';
import { PostgresDatabase } from '../../db/dialects/postgres.js';
import { SqliteDatabase, sharingLockWait, type SharedLockWait } from '../../db/dialects/sqlite.js';
import { serveRequests, type WorkerReply } from '../../db/worker-threads.js';
import type { OutputRecord } from './forwarder.store.js';
import { SqlForwarderStore } from './forwarder.store.js';
import { RawEventSource, type ChunkLoader, type ChunkRef } from './forwarder-raw.js';
import { postgresChunkLoader } from './forwarder-raw.postgres.js';
import { sqliteChunkLoader } from './forwarder-raw.sqlite.js';
import type { RecordOrigin } from './forwarder-records.js';
import { sqlSources } from './forwarder-sources.js';
import { OutputTurns, type TurnOptions } from './forwarder-turns.js';

/** How the thread reaches the database the server uses. */
export type ForwarderConnection =
  | { dialect: 'sqlite'; file: string; lockWait: SharedLockWait | undefined; pageCacheMb: number | undefined }
  | { dialect: 'postgres'; url: string; statementTimeoutMs: number | undefined };

export interface ForwarderThreadInit extends Omit<TurnOptions, 'now'> {
  connection: ForwarderConnection;
  origin: RecordOrigin;
  checkinIntervalMs: number;
}

export type TurnRequest =
  | { id: number; kind: 'turn'; output: OutputRecord }
  | { id: number; kind: 'release'; outputId: number }
  | { id: number; kind: 'stop' }
  | { id: number; kind: 'close' };

export interface TurnReply extends WorkerReply {
  readAny?: boolean;
}

function open(connection: ForwarderConnection): { db: SqlDatabase; loader: ChunkLoader<ChunkRef> } {
  if (connection.dialect === 'postgres') {
    // Reads and a cursor write at a time: two connections are plenty.
    const db = PostgresDatabase.open(connection.url, { poolSize: 2, statementTimeoutMs: connection.statementTimeoutMs, applicationName: 'vigil-forwarder' });
    return { db, loader: postgresChunkLoader() as ChunkLoader<ChunkRef> };
  }
  // Waits for the write lock on a timer, so that reading ahead and sending go on meanwhile, and
  // counts among the connections the event writer lets go first.
  const db = SqliteDatabase.open(connection.file, { ...sharingLockWait(connection.lockWait), yieldWhenBusy: true, pageCacheMb: connection.pageCacheMb });
  // The event writer's checkpointer thread copies the WAL back, as for the request thread's
  // connection (src/wiring/sqlite.ts): at SQLite's default each cursor write here copied the
  // WAL, which ingest keeps past 1,000 pages, taking a tenth of this thread's time.
  db.connection.pragma('wal_autocheckpoint = 0');
  return { db, loader: sqliteChunkLoader(db) as ChunkLoader<ChunkRef> };
}

const init = workerData as ForwarderThreadInit;
const { db, loader } = open(init.connection);
const sources = { sql: sqlSources(db, init.origin, init.checkinIntervalMs), raw: new RawEventSource(db, loader, init.origin) };
const turns = new OutputTurns(new SqlForwarderStore(db), sources, init);

serveRequests<TurnRequest, TurnReply>(async (request) => {
  switch (request.kind) {
    case 'turn':
      return { readAny: await turns.turn(request.output) };
    case 'release':
      await turns.release(request.outputId);
      return {};
    case 'stop':
      turns.stop();
      return {};
    case 'close':
      await turns.close();
      await db.close();
      return {};
  }
});
