/**
 * The analyzer: syntax tree + field catalog → predicate tree (analysis.ts). It resolves every
 * field for the index searched, expands bare terms over that index's default fields, turns each
 * value into its normalized form and match kind, and folds constants. Values a field cannot hold
 * are errors when the field was named, and quietly skip that field when a bare term was expanded
 * (`svchost.exe` is no md5, but it is a process name).
 */
import type { Span, QueryNode } from './ast.js';
import { allOf, anyOf, negate, type AnalyzedQuery, type FieldPredicate, type Match, type Predicate } from './analysis.js';
import { ConditionBudget } from './budget.js';
import { QueryError } from './errors.js';
import { defaultFields, resolveField, type IndexName, type ResolvedField } from './fields.js';
import { hasLeadingWildcard, matchRange, matchTerm, type MatchResult } from './term-match.js';

export interface AnalyzeOptions {
  readonly index: IndexName;
  /** The present, for relative times such as `-24h`; injected so results do not depend on the clock. */
  readonly now: number | Date;
  /** Carbon Black has refused leading wildcards by default since 6.2.3 (a server setting). */
  readonly leadingWildcards?: 'allow' | 'reject';
  /** Which request parameter the text came from, for error messages. */
  readonly source?: string;
  /** Shared by the parts of one request so that their sum is bounded; a fresh one when absent. */
  readonly budget?: ConditionBudget;
}

export function analyze(node: QueryNode, options: AnalyzeOptions): AnalyzedQuery {
  const now = typeof options.now === 'number' ? options.now : options.now.getTime();
  return { index: options.index, predicate: new Analyzer({ ...options, now }).walk(node) };
}

class Analyzer {
  private readonly source: string;
  private readonly budget: ConditionBudget;

  constructor(private readonly options: AnalyzeOptions & { readonly now: number }) {
    this.source = options.source ?? 'q';
    this.budget = options.budget ?? new ConditionBudget();
  }

  walk(node: QueryNode): Predicate {
    switch (node.kind) {
      case 'all':
        return { op: 'all' };
      case 'and':
        return allOf(node.children.map((child) => this.walk(child)));
      case 'or':
        return anyOf(node.children.map((child) => this.walk(child)));
      case 'not':
        return negate(this.walk(node.child));
      case 'exists': {
        const field = this.resolve(node.field, node.fieldSpan);
        // "alliance_score_<feed>:* means score > 0" (reference §6).
        const match: Match = field.dynamic?.family === 'alliance_score' ? { kind: 'number_range', min: 1, max: null } : { kind: 'exists' };
        return this.checked(predicate(field, match, node.span));
      }
      case 'range': {
        const field = this.resolve(node.field, node.fieldSpan);
        return this.predicates(field, matchRange(field.def, node.lower, node.upper, this.options.now), node.span);
      }
      case 'term': {
        if (node.field === null) return this.defaultFieldsTerm(node.value, node.quoted, node.span);
        const field = this.resolve(node.field, node.fieldSpan ?? node.span);
        return this.predicates(field, matchTerm(field.def, node.value, node.quoted, this.options.now), node.span);
      }
    }
  }

  private defaultFieldsTerm(value: string, quoted: boolean, span: Span): Predicate {
    const found: FieldPredicate[] = [];
    // md5 already stands for process_md5, parent_md5, … in a process search; say it once.
    const covered = new Set<string>();
    for (const def of defaultFields(this.options.index)) {
      const matches = matchTerm(def, value, quoted, this.options.now);
      if ('invalid' in matches || matches.length === 0) continue;
      const field = resolveField(def.name, this.options.index) as ResolvedField;
      found.push(...matches.map((match) => predicate(field, match, span)));
      if (this.options.index === 'process') def.unionOf?.forEach((name) => covered.add(name));
    }
    return anyOf(found.filter((p) => !covered.has(p.field)).map((p) => this.checked(p)));
  }

  private predicates(field: ResolvedField, result: MatchResult, span: Span): Predicate {
    if ('invalid' in result) {
      throw new QueryError('invalid_value', `${result.invalid} for field "${field.name}"`, span.start, this.source);
    }
    return anyOf(result.map((match) => this.checked(predicate(field, match, span))));
  }

  /** Every field predicate passes here: the server's wildcard rule, and the condition budget. */
  private checked(p: FieldPredicate): FieldPredicate {
    if (this.options.leadingWildcards === 'reject' && hasLeadingWildcard(p.match)) {
      throw new QueryError('leading_wildcard', 'Leading wildcards are disabled on this server', p.span.start, this.source,
        'path fields need none: filemod:system32\\ntdll.dll finds every path ending that way');
    }
    return this.budget.spend(p, this.source);
  }

  private resolve(name: string, span: Span): ResolvedField {
    const resolution = resolveField(name, this.options.index);
    if ('unknown' in resolution) {
      throw new QueryError('unknown_field', resolution.unknown, span.start, this.source, resolution.hint);
    }
    return resolution;
  }
}

/** An IPv6 value under `ipaddr:` (or IPv4 under `ipv6addr:`) is searched in the matching family. */
function predicate(field: ResolvedField, match: Match, span: Span): FieldPredicate {
  const family = match.kind === 'ipv4_range' ? 'ipaddr' : match.kind === 'ipv6_range' ? 'ipv6addr' : undefined;
  const name = family && (field.def.type === 'ipaddr' || field.def.type === 'ipv6addr') ? family : field.name;
  return {
    op: 'field',
    field: name,
    type: family && name === family ? family : field.def.type,
    source: field.source,
    ...(field.join ? { join: field.join } : {}),
    ...(field.dynamic ? { dynamic: field.dynamic } : {}),
    match,
    span,
  };
}
