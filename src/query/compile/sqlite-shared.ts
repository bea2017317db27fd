/**
 * SQLite's spelling of the shared condition compilers (shared-conditions.ts): 1 and 0 for
 * booleans, GLOB for case-sensitive patterns, and the JavaScript functions of
 * sqlite-functions.ts for the query language's keyword and path rules.
 */
import type { Match } from '../analysis.js';
import { FALSE, globLiteral, globPattern, raw, sql, TRUE, type Fragment } from './fragment.js';
import { columnConditions, type ConditionDialect } from './shared-conditions.js';

/** A keyword function call over `column`, Unicode case-insensitive. */
export function keywordFunction(column: string, match: Match): Fragment {
  const c = raw(column);
  switch (match.kind) {
    case 'exists':
      return TRUE;
    case 'exact':
      return sql`vigil_keyword(${c}, ${match.value})`;
    case 'prefix':
      return sql`vigil_glob(${c}, ${`${match.value}*`})`;
    case 'wildcard':
      return sql`vigil_glob(${c}, ${match.pattern})`;
    default:
      return FALSE;
  }
}

export const SQLITE: ConditionDialect = {
  true: TRUE,
  false: FALSE,
  patterns: { operator: raw('GLOB'), anyRun: '*', literal: globLiteral, fromQuery: globPattern },
  keyword: keywordFunction,
  subPath: (column, query) => sql`vigil_subpath(${raw(column)}, ${query}, 0)`,
  subPathPattern: (column, pattern) => sql`vigil_subpath_glob(${raw(column)}, ${pattern}, 0)`,
  userNamesAsProcessIds: true,
};

/** Lowered-column, range and bound conditions in this dialect (shared-conditions.ts). */
export const { loweredColumn, rangeColumn, bounded } = columnConditions(SQLITE);
