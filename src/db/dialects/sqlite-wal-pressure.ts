/**
 * The WAL checkpointer's call to the threads reading the same SQLite file when the WAL has grown
 * past its limit (src/db/wal-checkpointer.ts): a read transaction left open pins the WAL's end,
 * and SQLite can only start the WAL again from its beginning once no reader needs any of it. Until
 * then the WAL file only grows; under ingest with searches running it filled a 64 GB disk in
 * twelve minutes. The read workers answer by ending the paging snapshots they keep between pages,
 * and by keeping none while the call lasts (a later page of such a search reads a fresh snapshot).
 */
import { resolve } from 'node:path';
import { BroadcastChannel } from 'node:worker_threads';

/** Time for the read workers to end their snapshots before the WAL is copied back for its restart. */
export const READERS_LET_GO_MS = 100;

/** How long a call lasts: the checkpointer calls again at each of its turns while the WAL is over its limit. */
export const WAL_PRESSURE_LASTS_MS = 3_000;

/** A channel to every thread of this process that has one open for the same file. It does not keep a thread alive. */
export function walPressureChannel(file: string): BroadcastChannel {
  const channel = new BroadcastChannel(`vigil-wal-pressure:${resolve(file)}`);
  channel.unref();
  return channel;
}
