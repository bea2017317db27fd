/**
 * A search request's query text is more than `q`: `cb.q.<field>=<value>` (the UI's facet picks,
 * watchlist queries) and `cb.fq.<field>=<value>` (filters: alerts, threat reports) add terms
 * that are ANDed with it (reference core §3.2, admin §1.3). Each such value reads as
 * `<field>:(<value>)`. Repeats of one parameter are ORed, as picking two facet values of one field
 * means either (`cb.fq.feed_name=a&cb.fq.feed_name=b` in a published script); distinct parameters
 * are ANDed. A legacy client may send `q` itself as a list; its items are ANDed.
 */
import type { QueryNode } from './ast.js';
import { allOf, anyOf, type AnalyzedQuery } from './analysis.js';
import { analyze, type AnalyzeOptions } from './analyze.js';
import { ConditionBudget } from './budget.js';
import { QueryError } from './errors.js';
import { parseFieldQuery, parseQuery, type ParseLimits } from './parser.js';

/** Request parameters as the HTTP layer parsed them: a string, or a list for repeated keys. */
export type SearchParams = Readonly<Record<string, unknown>>;

const FIELD_PARAM = /^cb\.f?q\./u;

interface Part {
  readonly source: string;
  readonly combine: 'and' | 'or';
  readonly trees: readonly QueryNode[];
}

/**
 * The whole query as one tree, e.g. to show a watchlist's query as text. Each part's positions
 * refer to its own parameter; analyzeParams keeps them apart for error messages.
 */
export function queryFromParams(params: SearchParams, limits: ParseLimits = {}): QueryNode {
  return join('and', parts(params, limits).map((part) => join(part.combine, part.trees)));
}

/**
 * Parses and analyzes each part under its own parameter name ("… at position 3 of cb.q.group"),
 * all parts drawing on one condition budget.
 */
export function analyzeParams(params: SearchParams, options: AnalyzeOptions & ParseLimits): AnalyzedQuery {
  const budget = options.budget ?? new ConditionBudget();
  const predicates = parts(params, options).map((part) => {
    const each = part.trees.map((tree) => analyze(tree, { ...options, source: part.source, budget }).predicate);
    return part.combine === 'and' ? allOf(each) : anyOf(each);
  });
  return { index: options.index, predicate: allOf(predicates) };
}

function parts(params: SearchParams, limits: ParseLimits): Part[] {
  const found: Part[] = [];
  const qs = values(params.q);
  if (qs.length > 0) found.push({ source: 'q', combine: 'and', trees: qs.map((text) => parseQuery(text, { ...limits, source: 'q' })) });
  for (const [key, raw] of Object.entries(params)) {
    if (!FIELD_PARAM.test(key)) continue;
    const field = key.replace(FIELD_PARAM, '');
    if (field === '') throw new QueryError('syntax', 'The parameter names no field', 0, key);
    const trees = values(raw).map((text) => parseFieldQuery(field, text, { ...limits, source: key }));
    found.push({ source: key, combine: 'or', trees });
  }
  return found;
}

function join(kind: 'and' | 'or', nodes: readonly QueryNode[]): QueryNode {
  const span = { start: 0, end: 0 };
  if (kind === 'or' && nodes.some((node) => node.kind === 'all')) return { kind: 'all', span };
  const kept = kind === 'and' ? nodes.filter((node) => node.kind !== 'all') : nodes;
  if (kept.length === 0) return { kind: 'all', span };
  return kept.length === 1 ? kept[0]! : { kind, children: kept, span };
}

function values(raw: unknown): string[] {
  const list: unknown[] = Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw];
  return list.filter((v) => ['string', 'number', 'boolean'].includes(typeof v)).map(String);
}
