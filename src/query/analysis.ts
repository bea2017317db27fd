/**
 * What the analyzer hands to a compiler: a boolean tree of field predicates whose values are
 * already normalized the way the index stores them and whose match kinds say how to compare.
 * Nothing here knows SQL or any store; a compiler (or an in-memory matcher, using the helpers in
 * values/) turns each Match into a lookup.
 */
import type { Span } from './ast.js';
import type { BinaryJoin, DynamicFamily, FieldSource, FieldType, IndexName } from './fields.js';
import type { Neighbours } from './values/domain.js';

export type Predicate =
  | { readonly op: 'all' }
  | { readonly op: 'none' }
  | { readonly op: 'and'; readonly children: readonly Predicate[] }
  | { readonly op: 'or'; readonly children: readonly Predicate[] }
  | { readonly op: 'not'; readonly child: Predicate }
  | FieldPredicate;

export interface FieldPredicate {
  readonly op: 'field';
  /** Canonical field name (`digsig_result` for `digsig_result_parent`, `watchlist_12` as is). */
  readonly field: string;
  readonly type: FieldType;
  readonly source: FieldSource;
  /** Binary fields in a process search: whose binary (the process's own unless a suffix said). */
  readonly join?: BinaryJoin;
  readonly dynamic?: { readonly family: DynamicFamily; readonly key: string };
  readonly match: Match;
  /** The term's value in the query text. */
  readonly span: Span;
}

/**
 * How a value is compared. Strings are in the field's normal form (lower case; paths as
 * normalizePath; enums canonical). Patterns use `*` and `?` as in values/glob.ts.
 */
export type Match =
  /** The whole stored value equals `value`. */
  | { readonly kind: 'exact'; readonly value: string }
  /** The whole stored value starts with `value`. */
  | { readonly kind: 'prefix'; readonly value: string }
  /** The whole stored value matches the pattern. */
  | { readonly kind: 'wildcard'; readonly pattern: string }
  /** Path fields: the stored path is `value` or ends with a separator and `value` (matchesSubPath). */
  | { readonly kind: 'subpath'; readonly value: string }
  /** Path fields: the stored path or one of its trailing sub-paths matches the pattern. */
  | { readonly kind: 'subpath_wildcard'; readonly pattern: string }
  /**
   * Text and cmdline: the field's tokens (textTokens / cmdlineTokens) hold these at consecutive
   * positions. With `wildcard`, `*` and `?` inside a token are patterns for one token.
   */
  | { readonly kind: 'tokens'; readonly tokens: readonly string[]; readonly wildcard: boolean }
  /** Domains: the labels in a row, with labels before/after as the anchors say (matchesDomain). */
  | { readonly kind: 'domain'; readonly labels: readonly string[]; readonly before: Neighbours; readonly after: Neighbours }
  /** Counts and integers, inclusive; null is unbounded. */
  | { readonly kind: 'number_range'; readonly min: number | null; readonly max: number | null }
  /** 64-bit ids, inclusive. */
  | { readonly kind: 'long_range'; readonly min: bigint | null; readonly max: bigint | null }
  /** Epoch milliseconds, [from, to); null is unbounded. */
  | { readonly kind: 'time_range'; readonly from: number | null; readonly to: number | null }
  /** IPv4 as unsigned 32-bit numbers, inclusive (values/ip.ts converts to CB's signed form). */
  | { readonly kind: 'ipv4_range'; readonly first: number; readonly last: number }
  /** IPv6 as 128-bit numbers, inclusive. */
  | { readonly kind: 'ipv6_range'; readonly first: bigint; readonly last: bigint }
  | { readonly kind: 'bool'; readonly value: boolean }
  /** The field has any value. */
  | { readonly kind: 'exists' };

export interface AnalyzedQuery {
  readonly index: IndexName;
  readonly predicate: Predicate;
}

/** AND with constants folded and nested ANDs flattened. */
export function allOf(children: readonly Predicate[]): Predicate {
  const flat = children.flatMap((c) => (c.op === 'and' ? c.children : [c])).filter((c) => c.op !== 'all');
  if (flat.some((c) => c.op === 'none')) return { op: 'none' };
  return flat.length === 0 ? { op: 'all' } : flat.length === 1 ? flat[0]! : { op: 'and', children: flat };
}

/** OR with constants folded and nested ORs flattened. */
export function anyOf(children: readonly Predicate[]): Predicate {
  const flat = children.flatMap((c) => (c.op === 'or' ? c.children : [c])).filter((c) => c.op !== 'none');
  if (flat.some((c) => c.op === 'all')) return { op: 'all' };
  return flat.length === 0 ? { op: 'none' } : flat.length === 1 ? flat[0]! : { op: 'or', children: flat };
}

export function negate(child: Predicate): Predicate {
  if (child.op === 'all') return { op: 'none' };
  if (child.op === 'none') return { op: 'all' };
  return child.op === 'not' ? child.child : { op: 'not', child };
}
