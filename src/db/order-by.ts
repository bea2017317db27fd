/**
 * ORDER BY terms that sort alike in SQLite and PostgreSQL.
 * - NULLs: SQLite puts them first going up and last going down, PostgreSQL the other way round;
 *   the terms say it, and both accept NULLS FIRST/LAST.
 * - Caseless order: SQLite's NOCASE collation folds ASCII letters; PostgreSQL has no such
 *   collation, and lower() over the schema's "C"-collated text folds the same letters.
 */
import type { SqlDialect } from './database.js';

/** A sort key's expression; `{ caseless }` sorts the expression without regard to ASCII case. */
export type SortColumn = string | { readonly caseless: string };

export function orderTerm(dialect: SqlDialect, column: SortColumn, descending: boolean): string {
  const expression = typeof column === 'string' ? column
    : dialect === 'sqlite' ? `${column.caseless} COLLATE NOCASE` : `lower(${column.caseless})`;
  return `${expression} ${descending ? 'DESC NULLS LAST' : 'ASC NULLS FIRST'}`;
}
