/**
 * The postings a commit inserts, sorted by (term, segment row) first: B-tree inserts in key order
 * find their page where the previous insert left off, still in the CPU's caches, rather than all
 * over event_postings (a quarter less time inserting them, bench/RESULTS.md, bench/ingest).
 */

import { LRUCache } from 'lru-cache';

/** Doubles hold integers exactly up to 2^53: the packed sort keys must stay below it. */
const EXACT_LIMIT = 2 ** 53;

/**
 * Sorts the flat (term id, row) pairs (segment rows, or process rows for process_postings) in
 * place, dropping repeated pairs, and returns the pairs left. Each pair is packed into one number
 * so that a typed array sorts them natively; in the rare commit whose ids are too large to pack
 * exactly they are left in their order (inserting them unsorted stores the same rows).
 */
export function sortPostings(pairs: number[]): number[] {
  const count = pairs.length / 2;
  if (count < 2) return pairs;
  let maxTerm = 0;
  let minRow = Infinity;
  let maxRow = 0;
  for (let i = 0; i < pairs.length; i += 2) {
    maxTerm = Math.max(maxTerm, pairs[i]!);
    minRow = Math.min(minRow, pairs[i + 1]!);
    maxRow = Math.max(maxRow, pairs[i + 1]!);
  }
  const rows = maxRow - minRow + 1;
  if ((maxTerm + 1) * rows >= EXACT_LIMIT) return pairs;
  const keys = new Float64Array(count);
  for (let i = 0; i < count; i++) keys[i] = pairs[2 * i]! * rows + (pairs[2 * i + 1]! - minRow);
  keys.sort();
  let kept = 0;
  for (let i = 0; i < count; i++) {
    const key = keys[i]!;
    if (i > 0 && key === keys[i - 1]) continue;
    const term = Math.floor(key / rows);
    pairs[kept++] = term;
    pairs[kept++] = key - term * rows + minRow;
  }
  pairs.length = kept;
  return pairs;
}

/**
 * The terms recently written segments were posted under, so that a busy segment's later commits
 * leave out the postings it already has instead of asking the index for each: a third of a
 * commit's postings were such repeats, each a B-tree seek that found its row. Bounded: the least
 * recently written segments are forgotten, and a forgotten segment's terms are posted again,
 * which the index ignores (INSERT OR IGNORE), as it does after a restart.
 */
export class PostedTerms<Term = number> {
  private readonly bySegment: LRUCache<number, Set<Term>>;

  constructor(maxSegments = POSTED_SEGMENTS_KEPT) {
    this.bySegment = new LRUCache({ max: maxSegments });
  }

  /** The term ids segment `row` was posted under since it was last remembered; add to it what is posted. */
  of(row: number): Set<Term> {
    let terms = this.bySegment.get(row);
    if (terms === undefined) this.bySegment.set(row, (terms = new Set()));
    return terms;
  }

  /** The segment takes no more events (its process ended). */
  forget(row: number): void {
    this.bySegment.delete(row);
  }

  clear(): void {
    this.bySegment.clear();
  }
}

/** Segments whose posted terms are remembered: far more than a fleet's busy processes, a few tens of MB at most. */
const POSTED_SEGMENTS_KEPT = 20_000;
