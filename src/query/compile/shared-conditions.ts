/**
 * The part of predicate → SQL compiling that every database shares: the boolean skeleton and the
 * comparisons of one column with one match, written once over a `ConditionDialect`, which names
 * what each database spells its own way (sqlite-shared.ts, postgres-shared.ts give one each).
 */
import type { FieldPredicate, Match, Predicate } from '../analysis.js';
import { joinConditions, joinFragments, raw, sql, type Fragment, type SqlParam } from './fragment.js';

/** How a query pattern (`*`, `?`, the rest literal) is written for the database's case-sensitive pattern operator. */
export interface PatternSyntax {
  /** `GLOB`, `LIKE`. */
  readonly operator: Fragment;
  /** What matches any run of characters (`*`, `%`). */
  readonly anyRun: string;
  /** Text matched as itself. */
  literal(text: string): string;
  /** A query pattern in the operator's syntax. */
  fromQuery(pattern: string): string;
}

/** What a database spells its own way. */
export interface ConditionDialect {
  readonly true: Fragment;
  readonly false: Fragment;
  readonly patterns: PatternSyntax;
  /** A mixed-case column compared Unicode case-insensitively (values/keyword.ts). */
  keyword(column: string, match: Match): Fragment;
  /** The path is the sub-path or ends with a separator and it (values/path.ts matchesSubPath). */
  subPath(column: string, query: string): Fragment;
  /** The path or one of its trailing sub-paths matches the pattern. */
  subPathPattern(column: string, pattern: string): Fragment;
  /**
   * A user name as the set of process ids its index holds (SQLite: checked beside another condition
   * without reading process rows), rather than a column condition (PostgreSQL: which its planner
   * combines with the other conditions' indexes, BitmapAnd).
   */
  readonly userNamesAsProcessIds: boolean;
}

/** and / or / not / constants, shared by both indexes. */
export abstract class ConditionCompiler {
  constructor(protected readonly dialect: ConditionDialect) {}

  condition(predicate: Predicate): Fragment {
    switch (predicate.op) {
      case 'all':
        return this.dialect.true;
      case 'none':
        return this.dialect.false;
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
    return this.dialect.false;
  }
}

/** `column` against a pattern of the query: its prefix, or the whole of it. */
export function patternCondition(dialect: ConditionDialect, column: Fragment, match: Match): Fragment | undefined {
  const { operator, anyRun, literal, fromQuery } = dialect.patterns;
  if (match.kind === 'prefix') return sql`${column} ${operator} ${`${literal(match.value)}${anyRun}`}`;
  if (match.kind === 'wildcard') return sql`${column} ${operator} ${fromQuery(match.pattern)}`;
  return undefined;
}

/** A column holding lower-cased values (process_name, md5, …): index-friendly comparisons. */
export function loweredColumnIn(dialect: ConditionDialect, column: string, match: Match): Fragment {
  const c = raw(column);
  switch (match.kind) {
    case 'exists':
      return sql`${c} <> ''`;
    case 'exact':
      return sql`${c} = ${match.value}`;
    default:
      return patternCondition(dialect, c, match) ?? dialect.false;
  }
}

/** Counts, integers, ids and times: inclusive number ranges, half-open time ranges. */
export function rangeColumnIn(dialect: ConditionDialect, column: string, match: Match): Fragment {
  const c = raw(column);
  switch (match.kind) {
    case 'exists':
      return dialect.true;
    case 'number_range':
      return boundedIn(dialect, c, match.min, match.max);
    case 'long_range':
      return boundedIn(dialect, c, clampLong(match.min), clampLong(match.max));
    case 'time_range': {
      const parts = [
        ...(match.from === null ? [] : [sql`${c} >= ${match.from}`]),
        ...(match.to === null ? [] : [sql`${c} < ${match.to}`]),
      ];
      return parts.length === 0 ? dialect.true : parts.length === 1 ? parts[0]! : sql`(${joinFragments(parts, ' AND ')})`;
    }
    default:
      return dialect.false;
  }
}

export function boundedIn(dialect: ConditionDialect, column: Fragment, min: SqlParam | null, max: SqlParam | null): Fragment {
  if (min !== null && min === max) return sql`${column} = ${min}`;
  if (min !== null && max !== null) return sql`${column} BETWEEN ${min} AND ${max}`;
  if (min !== null) return sql`${column} >= ${min}`;
  return max !== null ? sql`${column} <= ${max}` : dialect.true;
}

/** The column conditions bound to one dialect, which its module exports under their usual names. */
export function columnConditions(dialect: ConditionDialect) {
  return {
    loweredColumn: (column: string, match: Match): Fragment => loweredColumnIn(dialect, column, match),
    rangeColumn: (column: string, match: Match): Fragment => rangeColumnIn(dialect, column, match),
    bounded: (column: Fragment, min: SqlParam | null, max: SqlParam | null): Fragment => boundedIn(dialect, column, min, max),
  };
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Both databases' integers are signed 64-bit; sensor ids never come near the edges. */
function clampLong(value: bigint | null): bigint | null {
  if (value === null) return null;
  return value < INT64_MIN ? INT64_MIN : value > INT64_MAX ? INT64_MAX : value;
}
