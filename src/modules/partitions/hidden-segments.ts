/**
 * Segments of unmounted partitions, and of partitions being deleted, are not searched nor read.
 * They are ranges of segment rows, so a read leaves them out with a predicate on the row id —
 * and adds nothing at all when every partition is mounted, the usual case.
 */

/** [first row, last row] of each range to leave out. */
export type RowRange = readonly [number, number];

/** The hidden ranges, read in the caller's transaction (a few rows: one per partition). */
export const HIDDEN_RANGES_SQL = `SELECT p.first_row, (SELECT min(n.first_row) - 1 FROM event_partitions n WHERE n.first_row > p.first_row) AS last_row
  FROM event_partitions p WHERE p.state IN ('cold', 'deleting')`;

/**
 * ` AND <column> NOT BETWEEN a AND b …` for a segment row column, or '' when nothing is hidden.
 * The bounds are row ids the store read, not user input.
 */
export function visibleRows(column: string, ranges: readonly RowRange[]): string {
  return ranges.map(([first, last]) => ` AND ${column} NOT BETWEEN ${Math.trunc(first)} AND ${Math.trunc(last)}`).join('');
}

/** The rows of HIDDEN_RANGES_SQL as ranges. */
export function toRanges(rows: readonly { first_row: number; last_row: number }[]): RowRange[] {
  return rows.map((row) => [row.first_row, row.last_row] as const);
}
