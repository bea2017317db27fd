/**
 * Reading a search's matches once: the count and the page from one pass instead of two
 * (process-search.sqlite.ts). Both plans hold what they collect in the worker's memory, so each
 * stops at a cap and leaves larger results to the plans that count first and page after.
 *
 * - Collected page: a condition on segments with a per-segment sort key collects every match's
 *   row and key (as two JSON arrays SQLite builds: cheaper than a row each), counts them and
 *   sorts them here. Same total order as the SQL plans: (key, row), both integers.
 * - Posted segments: a condition that is one event field reads its terms' postings once; their
 *   distinct rows are the count, and the page walk in the sort key's order tests each row
 *   against them through `vigil_posted` instead of building the set again inside SQLite.
 */
import type Database from 'better-sqlite3';
import { cachedStatement } from '../../db/dialects/sqlite-statements.js';
import type { SqlParam } from '../../query/compile/fragment.js';

/** A search collects at most this many (row, key) pairs (~1 MB of JSON) before falling back. */
export const MAX_COLLECTED = 25_000;
/** Posting rows read at most for one search (a few MB of JSON) before counting in SQLite instead. */
export const MAX_POSTED = 150_000;

export interface Collected {
  rows: number[];
  keys: number[];
}

/** Every match of `from … where` with its sort key, or undefined past `cap` matches. */
export function collectMatches(
  db: Database.Database, from: string, where: string, params: readonly unknown[], key: string, cap: number,
): Collected | undefined {
  const [count, rows, keys] = cachedStatement(db,
    `SELECT count(*), json_group_array(id), json_group_array(k) FROM (SELECT s.id AS id, ${key} AS k FROM ${from} WHERE ${where} LIMIT ${cap + 1})`,
  ).raw().get(...params) as [number, string, string];
  return count > cap ? undefined : { rows: JSON.parse(rows) as number[], keys: JSON.parse(keys) as number[] };
}

/** Rows `start` to `start + rows` of the collected matches in (key, row) order. */
export function pageOfCollected({ rows, keys }: Collected, descending: boolean, start: number, count: number): number[] {
  const sign = descending ? -1 : 1;
  const order = Array.from(rows.keys()).sort((a, b) => sign * (keys[a]! - keys[b]! || rows[a]! - rows[b]!));
  return order.slice(start, start + count).map((i) => rows[i]!);
}

export interface Posted {
  /** Distinct posted segment rows, in no order. */
  rows: number[];
  /** The same rows, to test against: a set, whose size the cap bounds (row ids themselves only grow). */
  member: Set<number>;
}

/** The distinct segments posted under the terms `termsSql` selects (`visible` leaves out hidden rows), or undefined past `cap` postings. */
export function postedSegments(
  db: Database.Database, termsSql: string, params: readonly SqlParam[], visible: string, cap: number,
): Posted | undefined {
  const [count, list] = cachedStatement(db,
    `SELECT count(*), json_group_array(segment_row) FROM (SELECT segment_row FROM event_postings WHERE term_id IN (${termsSql})${visible} LIMIT ${cap + 1})`,
  ).raw().get(...params) as [number, string];
  if (count > cap) return undefined;
  const member = new Set(JSON.parse(list) as number[]);
  return { rows: [...member], member };
}

/** The set `vigil_posted` tests, only while a statement of withPosted runs. */
let current: Set<number> | undefined;

export function registerPostedFunction(connection: Database.Database): void {
  connection.function('vigil_posted', { deterministic: false }, (row: unknown) => (current?.has(row as number) ? 1 : 0));
}

/** Runs `read` with `vigil_posted(row)` answering from `posted`. */
export function withPosted<T>(posted: Posted, read: () => T): T {
  current = posted.member;
  try {
    return read();
  } finally {
    current = undefined;
  }
}
