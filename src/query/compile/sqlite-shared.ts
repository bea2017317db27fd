/**
 * What both SQLite condition compilers (process and binary search) share: the boolean skeleton and
 * the comparisons of one column with one match.
 */
import type { FieldPredicate, Match, Predicate } from '../analysis.js';
import type { Fragment} from './fragment.js';
import { FALSE, globLiteral, globPattern, joinConditions, joinFragments, raw, sql, TRUE, type SqlParam } from './fragment.js';

/** and / or / not / constants, shared by both indexes. */
export abstract class Compiler {
  condition(predicate: Predicate): Fragment {
    switch (predicate.op) {
      case 'all':
        return TRUE;
      case 'none':
        return FALSE;
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

  /** `watchlist_<id>`, `alliance_score_<feed>` …: nothing matches unless the index keeps them. */
  protected dynamicField(_predicate: FieldPredicate): Fragment {
    return FALSE;
  }
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
      return sql`${c} GLOB ${`${globLiteral(match.value)}*`}`;
    case 'wildcard':
      return sql`${c} GLOB ${globPattern(match.pattern)}`;
    default:
      return FALSE;
  }
}

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

/** Counts, integers, ids and times: inclusive number ranges, half-open time ranges. */
export function rangeColumn(column: string, match: Match): Fragment {
  const c = raw(column);
  switch (match.kind) {
    case 'exists':
      return TRUE;
    case 'number_range':
      return bounded(c, match.min, match.max);
    case 'long_range':
      return bounded(c, clampLong(match.min), clampLong(match.max));
    case 'time_range': {
      const parts = [
        ...(match.from === null ? [] : [sql`${c} >= ${match.from}`]),
        ...(match.to === null ? [] : [sql`${c} < ${match.to}`]),
      ];
      return parts.length === 0 ? TRUE : parts.length === 1 ? parts[0]! : sql`(${joinFragments(parts, ' AND ')})`;
    }
    default:
      return FALSE;
  }
}

export function bounded(column: Fragment, min: SqlParam | null, max: SqlParam | null): Fragment {
  if (min !== null && min === max) return sql`${column} = ${min}`;
  if (min !== null && max !== null) return sql`${column} BETWEEN ${min} AND ${max}`;
  if (min !== null) return sql`${column} >= ${min}`;
  return max !== null ? sql`${column} <= ${max}` : TRUE;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** SQLite integers are signed 64-bit; sensor ids never come near the edges. */
function clampLong(value: bigint | null): bigint | null {
  if (value === null) return null;
  return value < INT64_MIN ? INT64_MIN : value > INT64_MAX ? INT64_MAX : value;
}

