/**
 * A search that is one event term (a value, or a wildcard that matches one value of the field):
 * its count is the term's row in term_segment_counts, which the writer keeps with every commit,
 * instead of every posting read (postings are unique per (term, segment), so the term's postings
 * are its matching segments). Its newest page walks the sort key's index and probes the term's
 * postings for each segment walked, stopping at the page, instead of building the set of every
 * posted segment first. Both cost what the page costs, not what the matches do.
 */
import type Database from 'better-sqlite3';
import { cachedStatement } from '../../db/dialects/sqlite-statements.js';
import type { SqlParam } from '../../query/compile/fragment.js';

export interface CountedTerm {
  /** The term's id, or null when the condition selects no term at all. */
  term: number | null;
  segments: number;
}

/** The one term `termsSql` selects, with the segments posted under it; undefined when it selects several. */
export function countedTerm(db: Database.Database, termsSql: string, params: readonly SqlParam[]): CountedTerm | undefined {
  const terms = cachedStatement(db, `SELECT id FROM (${termsSql}) LIMIT 2`).pluck().all(...params) as number[];
  if (terms.length > 1) return undefined;
  if (terms.length === 0) return { term: null, segments: 0 };
  const segments = cachedStatement(db, 'SELECT segments FROM term_segment_counts WHERE term_id = ?').pluck().get(terms[0]) as number | undefined;
  return { term: terms[0]!, segments: segments ?? 0 };
}

/** The condition's SQL over `segments s` for the other plans (the page sorted apart, facets). */
export const TERM_CONDITION = 's.id IN (SELECT segment_row FROM event_postings WHERE term_id = ?)';

/**
 * Segments walked at most, per row the page needs at the matches' average density, before the
 * walk gives up (matches may crowd old segments the newest-first walk reaches last).
 */
const WALK_SLACK = 10;
const MIN_WALK = 20_000;

/** Where a walk reads: the sort key's indexed column, its index, and the direction. */
export interface TermWalk {
  column: string;
  index: string;
  direction: 'ASC' | 'DESC';
}

/**
 * Rows `start` to `start + rows` of the term's segments in (key, row) order, read through the
 * key's index, or undefined when the walk met fewer than `expected` (the matches crowd where the
 * walk reaches last, or are too few): the caller then reads them by the sorting plan.
 * `density` is matches per stored segment; `walkLimit` replaces the walk's bound (tests).
 */
export function walkTermPage(
  db: Database.Database, walk: TermWalk, term: number, page: { start: number; rows: number; expected: number; density: number },
  walkLimit?: number,
): number[] | undefined {
  const limit = walkLimit ?? Math.max(MIN_WALK, Math.ceil((WALK_SLACK * (page.start + page.rows)) / page.density));
  const key = walk.column.replace(/^s\./u, '');
  const order = `${key} ${walk.direction}, id ${walk.direction}`;
  // Only the index is read in the walk (its key and the row id); the outer ORDER BY restates its order.
  const ids = cachedStatement(db,
    `SELECT id FROM (SELECT s.id AS id, ${walk.column} AS ${key} FROM segments s INDEXED BY ${walk.index} ORDER BY ${order} LIMIT ?)
     WHERE EXISTS (SELECT 1 FROM event_postings e WHERE e.term_id = ? AND e.segment_row = id) ORDER BY ${order} LIMIT ? OFFSET ?`,
  ).pluck().all(limit, term, page.rows, page.start) as number[];
  return ids.length === page.expected ? ids : undefined;
}
