/**
 * The syntax tree of a query: what was written, with positions, before any field knowledge.
 * Field names are lower-cased (Carbon Black field names are case-insensitive for us); values
 * are unescaped. Parentheses leave no node of their own: a group is its inner node.
 */

/** Half-open [start, end) offsets into the query text. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

export type QueryNode = MatchAllNode | AndNode | OrNode | NotNode | TermNode | RangeNode | ExistsNode;

/** The empty query, `*` and `*:*`: everything. */
export interface MatchAllNode {
  readonly kind: 'all';
  readonly span: Span;
}

export interface AndNode {
  readonly kind: 'and';
  readonly children: readonly QueryNode[];
  readonly span: Span;
}

export interface OrNode {
  readonly kind: 'or';
  readonly children: readonly QueryNode[];
  readonly span: Span;
}

/** `-x` or `NOT x`. */
export interface NotNode {
  readonly kind: 'not';
  readonly child: QueryNode;
  readonly span: Span;
}

/**
 * A word or a phrase, with a field or searched in the default fields (field null). In an
 * unquoted word every `*` and `?` is a wildcard; in a phrase (quoted) every character is literal.
 */
export interface TermNode {
  readonly kind: 'term';
  readonly field: string | null;
  readonly fieldSpan: Span | null;
  readonly value: string;
  readonly quoted: boolean;
  /** The value's own span (where a value error points). */
  readonly span: Span;
}

export interface RangeBound {
  readonly value: string;
  readonly quoted: boolean;
  readonly span: Span;
}

/** `field:[lower TO upper]`, inclusive; a null bound is `*` (open). */
export interface RangeNode {
  readonly kind: 'range';
  readonly field: string;
  readonly fieldSpan: Span;
  readonly lower: RangeBound | null;
  readonly upper: RangeBound | null;
  readonly span: Span;
}

/** `field:*`: the field has a value. */
export interface ExistsNode {
  readonly kind: 'exists';
  readonly field: string;
  readonly fieldSpan: Span;
  readonly span: Span;
}

/** The same tree without positions, for comparing what two texts mean. */
export function withoutSpans(node: QueryNode): unknown {
  return JSON.parse(JSON.stringify(node, (key, value) => (key === 'span' || key === 'fieldSpan' ? undefined : value)));
}
