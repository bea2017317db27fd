/**
 * PostgreSQL's spelling of the shared condition compilers (shared-conditions.ts): its booleans,
 * LIKE for case-sensitive patterns, and the query language's matching rules written in
 * PostgreSQL's own terms, since PostgreSQL cannot call the JavaScript functions
 * SQLite is given (sqlite-functions.ts):
 *
 * - keywords: `lower(normalize(x, NFC))`, the same folding as values/keyword.ts (PostgreSQL's
 *   lower() follows the database's locale; it differs from JavaScript's only on a few letters
 *   such as the dotted capital I);
 * - patterns (`*`, `?`): LIKE with `\` escaping, case-sensitive as GLOB is; patterns over paths
 *   and token runs: POSIX regular expressions (`~`) built here from the query.
 */
import type { Match } from '../analysis.js';
import { raw, sql, type Fragment } from './fragment.js';
import { columnConditions, patternCondition, type ConditionDialect } from './shared-conditions.js';

export const PG_TRUE = raw('TRUE');
export const PG_FALSE = raw('FALSE');

/** A query pattern (`*`, `?`, the rest literal) as a LIKE pattern with `\` as its escape. */
export function likePattern(pattern: string): string {
  return pattern.replace(/[\\%_*?]/gu, (char) => (char === '*' ? '%' : char === '?' ? '_' : `\\${char}`));
}

/** A literal as the start of a LIKE pattern. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/gu, (char) => `\\${char}`);
}

/** A query pattern as the body of a POSIX regular expression; `any` is what `*` and `?` may cross. */
export function regexBody(pattern: string, any = '.'): string {
  return [...pattern].map((char) => (char === '*' ? `${any}*` : char === '?' ? any : char.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&'))).join('');
}

/** A mixed-case column compared Unicode case-insensitively. */
export function keywordCondition(column: string, match: Match): Fragment {
  const folded = raw(`lower(normalize(${column}, NFC))`);
  switch (match.kind) {
    case 'exists':
      return PG_TRUE;
    case 'exact':
      return sql`${folded} = ${match.value}`;
    default:
      return patternCondition(POSTGRES, folded, match) ?? PG_FALSE;
  }
}

/** A path in the normal form of values/path.ts: lower case, `\` separators, none doubled or at the ends. */
export function normalPath(column: string): Fragment {
  return raw(`btrim(regexp_replace(lower(${column}), '[\\\\/]+', '\\\\', 'g'), '\\')`);
}

/** The path is the sub-path or ends with a separator and it (values/path.ts matchesSubPath). */
export function subPath(column: string, query: string): Fragment {
  const path = normalPath(column);
  return sql`(${path} = ${query} OR right(${path}, ${query.length + 1}) = ${`\\${query}`})`;
}

/** The path or one of its trailing sub-paths matches the pattern. */
export function subPathPattern(column: string, pattern: string): Fragment {
  return sql`${normalPath(column)} ~ ${`(^|\\\\)${regexBody(pattern)}$`}`;
}

/**
 * Text fields (values/text.ts): the query's tokens at consecutive positions of the value's
 * tokens, which are runs of letters and digits; a wildcard token stays within one token.
 */
export function textTokensCondition(column: string, tokens: readonly string[], wildcard: boolean): Fragment {
  const token = (t: string) => (wildcard ? regexBody(t, '[[:alnum:]]') : regexBody(t));
  const body = tokens.map(token).join('[^[:alnum:]]+');
  return sql`lower(normalize(${raw(column)}, NFC)) ~ ${`(^|[^[:alnum:]])${body}([^[:alnum:]]|$)`}`;
}

export const POSTGRES: ConditionDialect = {
  true: PG_TRUE,
  false: PG_FALSE,
  patterns: { operator: raw('LIKE'), anyRun: '%', literal: likeLiteral, fromQuery: likePattern },
  keyword: keywordCondition,
  subPath,
  subPathPattern,
  userNamesAsProcessIds: false,
};

/** Lowered-column, range and bound conditions in this dialect (shared-conditions.ts). */
export const { loweredColumn, rangeColumn, bounded } = columnConditions(POSTGRES);
