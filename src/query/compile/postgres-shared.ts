/**
 * What both PostgreSQL condition compilers (process and binary search) share: the boolean
 * skeleton, the comparisons of one column with one match, and the query language's matching
 * rules written in PostgreSQL's own terms, since PostgreSQL cannot call the JavaScript functions
 * SQLite is given (sqlite-functions.ts):
 *
 * - keywords: `lower(normalize(x, NFC))`, the same folding as values/keyword.ts (PostgreSQL's
 *   lower() follows the database's locale; it differs from JavaScript's only on a few letters
 *   such as the dotted capital I);
 * - patterns (`*`, `?`): LIKE with `\` escaping, case-sensitive as GLOB is; patterns over paths
 *   and token runs: POSIX regular expressions (`~`) built here from the query.
 */
import type { FieldPredicate, Match, Predicate } from '../analysis.js';
import { joinConditions, joinFragments, raw, sql, type Fragment, type SqlParam } from './fragment.js';

export const PG_TRUE = raw('TRUE');
export const PG_FALSE = raw('FALSE');

/** and / or / not / constants, shared by both indexes. */
export abstract class PostgresCompiler {
  condition(predicate: Predicate): Fragment {
    switch (predicate.op) {
      case 'all':
        return PG_TRUE;
      case 'none':
        return PG_FALSE;
      case 'and':
        return sql`(${joinConditions(predicate.children.map((c) => this.condition(c)), 'AND')})`;
      case 'or':
        return sql`(${joinConditions(predicate.children.map((c) => this.condition(c)), 'OR')})`;
      case 'not':
        return sql`NOT (${this.condition(predicate.child)})`;
      case 'field':
        return predicate.dynamic ? this.dynamicField(predicate) : this.field(predicate);
    }
  }

  protected abstract field(predicate: FieldPredicate): Fragment;

  protected dynamicField(_predicate: FieldPredicate): Fragment {
    return PG_FALSE;
  }
}

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

/** A column holding lower-cased values (process_name, md5, …): index-friendly comparisons. */
export function loweredColumn(column: string, match: Match): Fragment {
  const c = raw(column);
  switch (match.kind) {
    case 'exists':
      return sql`${c} <> ''`;
    case 'exact':
      return sql`${c} = ${match.value}`;
    case 'prefix':
      return sql`${c} LIKE ${`${likeLiteral(match.value)}%`}`;
    case 'wildcard':
      return sql`${c} LIKE ${likePattern(match.pattern)}`;
    default:
      return PG_FALSE;
  }
}

/** A mixed-case column compared Unicode case-insensitively. */
export function keywordCondition(column: string, match: Match): Fragment {
  const folded = raw(`lower(normalize(${column}, NFC))`);
  switch (match.kind) {
    case 'exists':
      return PG_TRUE;
    case 'exact':
      return sql`${folded} = ${match.value}`;
    case 'prefix':
      return sql`${folded} LIKE ${`${likeLiteral(match.value)}%`}`;
    case 'wildcard':
      return sql`${folded} LIKE ${likePattern(match.pattern)}`;
    default:
      return PG_FALSE;
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

/** Counts, integers, ids and times: inclusive number ranges, half-open time ranges. */
export function rangeColumn(column: string, match: Match): Fragment {
  const c = raw(column);
  switch (match.kind) {
    case 'exists':
      return PG_TRUE;
    case 'number_range':
      return bounded(c, match.min, match.max);
    case 'long_range':
      return bounded(c, clampLong(match.min), clampLong(match.max));
    case 'time_range': {
      const parts = [
        ...(match.from === null ? [] : [sql`${c} >= ${match.from}`]),
        ...(match.to === null ? [] : [sql`${c} < ${match.to}`]),
      ];
      return parts.length === 0 ? PG_TRUE : parts.length === 1 ? parts[0]! : sql`(${joinFragments(parts, ' AND ')})`;
    }
    default:
      return PG_FALSE;
  }
}

export function bounded(column: Fragment, min: SqlParam | null, max: SqlParam | null): Fragment {
  if (min !== null && min === max) return sql`${column} = ${min}`;
  if (min !== null && max !== null) return sql`${column} BETWEEN ${min} AND ${max}`;
  if (min !== null) return sql`${column} >= ${min}`;
  return max !== null ? sql`${column} <= ${max}` : PG_TRUE;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function clampLong(value: bigint | null): bigint | null {
  if (value === null) return null;
  return value < INT64_MIN ? INT64_MIN : value > INT64_MAX ? INT64_MAX : value;
}
