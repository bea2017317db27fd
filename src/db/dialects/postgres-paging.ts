/**
 * Paging snapshots on PostgreSQL, as the SQLite read workers keep them (sqlite-read.worker.ts):
 * the first page of a search (a paging key) opens a REPEATABLE READ READ ONLY transaction on a
 * connection of its own and keeps it open; later pages of the same key run in that transaction,
 * so pages neither repeat nor skip documents while events keep arriving. A snapshot is released
 * when its result has no more pages, when idle, when old, when a statement in it fails, or when
 * more than `max` are held: each holds a pool connection, and an old snapshot holds back vacuum.
 *
 * The snapshots are this server's: a page that reaches another Vigil server (or comes after a
 * release) reads a fresh snapshot, as a first page does.
 */
import type pg from 'pg';
import type { SqlExecutor } from '../database.js';
import type { PagingSnapshot } from '../../query/search-request.js';
import { PostgresExecutor, translatePostgresError, type PostgresDatabase } from './postgres.js';
import { readFailure } from './postgres-read.js';

export interface PagingLimits {
  /** Held at once; the least recently used is released first. */
  max: number;
  /** Released when unused this long. */
  idleMs: number;
  /** A snapshot no second page has used yet is released after this long. */
  firstPageMs: number;
  /** Released this long after it was taken, used or not. */
  maxAgeMs: number;
}

/** The SQLite read pool's limits, with fewer held: each is a connection of the shared pool. */
export const DEFAULT_PAGING_LIMITS: PagingLimits = { max: 4, idleMs: 60_000, firstPageMs: 10_000, maxAgeMs: 300_000 };

/** A page's work: its result, and whether later pages may come (the snapshot is kept only then). */
export type PageRead<T> = (reader: SqlExecutor) => Promise<{ result: T; more: boolean }>;

interface Held {
  client: pg.PoolClient;
  reader: SqlExecutor;
  takenMs: number;
  usedMs: number;
  paged: boolean;
  /** Pages reading it now: a released snapshot ends when the last of them is done. */
  readers: number;
  released: boolean;
  ended: boolean;
  failed: boolean;
}

export class PostgresPagingSnapshots {
  private readonly held = new Map<string, Held>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly db: PostgresDatabase,
    private readonly limits: PagingLimits = DEFAULT_PAGING_LIMITS,
    private readonly now: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => this.releaseStale(), Math.min(limits.firstPageMs, limits.idleMs, 10_000));
    this.sweeper.unref();
  }

  /** Runs one page of the search `paging` names, in its kept snapshot or (first page, or none kept) a new one. */
  async read<T>(paging: PagingSnapshot, work: PageRead<T>, timeLimitMs?: number): Promise<T> {
    const now = this.now();
    let snapshot = this.held.get(paging.key);
    if (snapshot && paging.fresh) this.release(paging.key);
    if (!snapshot || paging.fresh) {
      snapshot = await this.take(timeLimitMs);
      this.held.set(paging.key, snapshot);
      while (this.held.size > this.limits.max) this.release(this.held.keys().next().value!);
    } else {
      // Most recently used last, so the oldest is released first.
      this.held.delete(paging.key);
      this.held.set(paging.key, snapshot);
      snapshot.paged = true;
    }
    snapshot.usedMs = now;
    snapshot.readers += 1;
    try {
      const { result, more } = await work(snapshot.reader);
      if (!more) this.release(paging.key);
      return result;
    } catch (error) {
      snapshot.failed = true;
      this.release(paging.key);
      throw readFailure(error, timeLimitMs);
    } finally {
      snapshot.readers -= 1;
      if (snapshot.released) end(snapshot);
    }
  }

  /** Releases every snapshot (the server is stopping). */
  close(): void {
    clearInterval(this.sweeper);
    for (const key of [...this.held.keys()]) this.release(key);
  }

  private async take(timeLimitMs: number | undefined): Promise<Held> {
    let client: pg.PoolClient;
    try {
      client = await this.db.pool.connect();
    } catch (error) {
      throw translatePostgresError(error);
    }
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      if (timeLimitMs !== undefined) await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.ceil(timeLimitMs))}`);
    } catch (error) {
      client.release(error as Error);
      throw translatePostgresError(error);
    }
    const now = this.now();
    return { client, reader: new PostgresExecutor(client), takenMs: now, usedMs: now, paged: false, readers: 0, released: false, ended: false, failed: false };
  }

  /** Forgets the key's snapshot; it ends once no page reads it. */
  private release(key: string): void {
    const snapshot = this.held.get(key);
    if (!snapshot) return;
    this.held.delete(key);
    snapshot.released = true;
    end(snapshot);
  }

  private releaseStale(): void {
    const now = this.now();
    for (const [key, snapshot] of this.held) {
      const idleLimit = snapshot.paged ? this.limits.idleMs : this.limits.firstPageMs;
      if (now - snapshot.usedMs > idleLimit || now - snapshot.takenMs > this.limits.maxAgeMs) this.release(key);
    }
  }
}

/** Ends a released snapshot's transaction and returns its connection, unless a page still reads it; one that failed goes back closed. */
function end(snapshot: Held): void {
  if (snapshot.readers > 0 || !snapshot.released || snapshot.ended) return;
  snapshot.ended = true;
  const { client } = snapshot;
  client.query('ROLLBACK').then(
    () => client.release(snapshot.failed ? new Error('a paging snapshot failed') : undefined),
    (error: Error) => client.release(error),
  );
}
