/**
 * A read worker: searches run here, on read-only connections to the SQLite file, so a query of
 * any length never stalls the request thread (house rule 6). WAL mode lets them read beside the
 * ingest writer; every job runs in a read transaction, so its counts and rows agree.
 *
 * Paging snapshots: a job may name a snapshot key (a user's query, without its page). The first
 * page takes a fresh snapshot on a connection of its own and keeps its read transaction open;
 * later pages of the same key read that same snapshot, so pages neither repeat nor skip
 * documents while events keep arriving. Snapshots are released when the result has no more
 * pages, when idle, when old, when more than `max` are open, or when the WAL has outgrown its limit
 * (sqlite-wal-pressure.ts): an open read transaction holds back WAL checkpoints, and a growing WAL
 * slows every read and fills the disk. A first page's snapshot that no second
 * page comes for is released soonest (a client that pages asks for the next page at once).
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { niceThisThread } from '../thread-priority.js';
import { READ_TIMEOUT_CODE, type ReadHandler, type ReadJob, type ReadReply, type ReadWorkerInit } from './sqlite-read.messages.js';
import { WAL_PRESSURE_LASTS_MS, walPressureChannel } from './sqlite-wal-pressure.js';

const { file, handlers: handlerUrls, snapshots: limits, memory, nice } = workerData as ReadWorkerInit;
niceThisThread(nice);
const handlers = new Map<string, ReadHandler>();
for (const [name, url] of Object.entries(handlerUrls)) handlers.set(name, (await import(url)) as ReadHandler);

interface Snapshot {
  connection: Database.Database;
  takenMs: number;
  usedMs: number;
  /** Whether a later page has used it: until then it is kept only for limits.firstPageMs. */
  paged: boolean;
}

/** Connections not holding a snapshot, kept open so their caches and prepared statements stay warm. */
const idle: Database.Database[] = [];

function open(): Database.Database {
  const reused = idle.pop();
  if (reused) return reused;
  const connection = new Database(file, { readonly: true, fileMustExist: true });
  // Pages of the database file are read through a shared mapping instead of copied into each
  // connection's cache; the cache then mostly holds pages that are still in the WAL.
  connection.pragma(`mmap_size = ${memory.mmapMb * 2 ** 20}`);
  for (const handler of handlers.values()) handler.setup?.(connection);
  return connection;
}

/**
 * A connection has its page cache only while a job runs on it (ADR 0039). Idle connections and
 * snapshots waiting for their next page kept theirs, up to 17 × searchCacheMb a thread, filling one
 * by one over many minutes; while ingest runs, a read transaction finds the file changed and
 * starts with an empty cache anyway, so letting the pages go costs a paging snapshot's next page
 * its WAL pages, read again from the kernel's page cache. A cache_size of 0 frees every page.
 */
function withPageCache<T>(connection: Database.Database, work: () => T): T {
  connection.pragma(`cache_size = -${memory.pageCacheMb * 1024}`);
  try {
    return work();
  } finally {
    connection.pragma('cache_size = 0');
  }
}

function putBack(connection: Database.Database): void {
  if (connection.inTransaction) connection.exec('COMMIT');
  if (idle.length <= limits.max) idle.push(connection);
  else connection.close();
}

const snapshots = new Map<string, Snapshot>();
const port = parentPort!;

port.on('message', (job: ReadJob) => {
  let reply: ReadReply;
  try {
    reply = { id: job.id, result: run(job) };
  } catch (error) {
    const { message, code } = error as { message?: unknown; code?: unknown };
    reply = { id: job.id, error: { message: String(message ?? error), code: typeof code === 'string' ? code : undefined } };
  }
  port.postMessage(reply);
});

function run(job: ReadJob): unknown {
  const handler = handlers.get(job.handler);
  if (!handler) throw new Error(`no read handler ${job.handler}`);
  const now = Date.now();
  if (job.deadline !== undefined && now >= job.deadline) {
    throw Object.assign(new Error('the time limit passed before the job started'), { code: READ_TIMEOUT_CODE });
  }
  releaseStale(now);
  if (!job.snapshot) {
    const connection = open();
    connection.exec('BEGIN');
    try {
      return withPageCache(connection, () => handler.run(connection, job.request).result);
    } finally {
      putBack(connection);
    }
  }
  const { key, fresh } = job.snapshot;
  let snapshot = snapshots.get(key);
  if (snapshot && fresh) release(key);
  if (!snapshot || fresh) {
    snapshot = { connection: open(), takenMs: now, usedMs: now, paged: false };
    snapshot.connection.exec('BEGIN');
    snapshots.set(key, snapshot);
    while (snapshots.size > limits.max) release(snapshots.keys().next().value!);
  } else {
    // Most recently used last, so the first key is the one to let go of.
    snapshots.delete(key);
    snapshots.set(key, snapshot);
    snapshot.paged = true;
  }
  snapshot.usedMs = now;
  try {
    const { connection } = snapshot;
    const { result, more } = withPageCache(connection, () => handler.run(connection, job.request));
    if (!more || now < walPressureUntil) release(key);
    return result;
  } catch (error) {
    release(key);
    throw error;
  }
}

function release(key: string): void {
  const snapshot = snapshots.get(key);
  if (!snapshot) return;
  snapshots.delete(key);
  putBack(snapshot.connection);
}

function releaseStale(now: number): void {
  for (const [key, snapshot] of snapshots) {
    const idleLimit = snapshot.paged ? limits.idleMs : limits.firstPageMs;
    if (now - snapshot.usedMs > idleLimit || now - snapshot.takenMs > limits.maxAgeMs) release(key);
  }
}

/** The handlers' warm-ups, one step per turn of the event loop so that jobs run between steps. */
function warmUp(): void {
  const warming = [...handlers.values()].filter((handler) => handler.warm !== undefined);
  const next = () => {
    const handler = warming.shift();
    if (!handler) return;
    const connection = open();
    connection.exec('BEGIN');
    const steps = handler.warm!(connection);
    const step = () => {
      let done = true;
      try {
        done = withPageCache(connection, () => steps.next().done === true);
      } catch (error) {
        // A cache left cold is built by the first request that needs it.
        console.error('read worker warm-up failed', error);
      }
      if (!done) return void setImmediate(step);
      putBack(connection);
      next();
    };
    setImmediate(step);
  };
  next();
}
warmUp();

/** Until then, the WAL is over its limit: no snapshot is kept between pages (sqlite-wal-pressure.ts). */
let walPressureUntil = 0;
walPressureChannel(file).onmessage = () => {
  walPressureUntil = Date.now() + WAL_PRESSURE_LASTS_MS;
  for (const key of [...snapshots.keys()]) release(key);
};

// Idle snapshots must not outlive their limits just because no job comes to notice them.
setInterval(() => releaseStale(Date.now()), Math.min(limits.firstPageMs, limits.idleMs, 10_000)).unref();
