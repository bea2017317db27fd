/**
 * The WAL checkpointer's call to the threads reading the same SQLite file when the WAL has grown
 * past its limit (src/db/wal-checkpointer.ts): a read transaction left open pins the WAL's end,
 * and SQLite can only start the WAL again from its beginning once no reader needs any of it. Until
 * then the WAL file only grows; under ingest with searches running it filled a 64 GB disk in
 * twelve minutes. The read workers answer by ending the paging snapshots they keep between pages
 * (a later page of such a search then reads a fresh snapshot).
 */
import { resolve } from 'node:path';
import { BroadcastChannel } from 'node:worker_threads';

/** A channel to every thread of this process that has one open for the same file. It does not keep a thread alive. */
export function walPressureChannel(file: string): BroadcastChannel {
  const channel = new BroadcastChannel(`vigil-wal-pressure:${resolve(file)}`);
  channel.unref();
  return channel;
}
