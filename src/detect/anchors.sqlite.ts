/**
 * Anchors of a search on the embedded store: values a segment must hold for the search to be able to match it, so a live
 * run evaluates a search only on the new segments holding one (candidates.sqlite.ts) while the
 * compiled SQL stays the judge of what matches. Derived from the analyzed query:
 *
 * - a term on an event field (domain, filemod, cmdline words, childproc_name, …) anchors on the
 *   dictionary ids its value condition selects — the compiler's own condition, so the ids are
 *   exactly those its SQL reads;
 * - a term on a lower-cased process column (process_name, parent_name, md5s, the path's last
 *   segment) anchors on that column's value, tested in memory on the new segments' processes;
 * - AND anchors on its most selective anchored child, OR on the union of its children's;
 * - anything else (negation, `*`, host and user names, binary metadata, tags, counts and times)
 *   has no anchor: such a search is evaluated on every new segment.
 *
 * `null` means "no anchor" (could match any segment); an empty list means the search cannot match.
 */
import type { FieldPredicate, Match, Predicate } from '../query/analysis.js';
import { EVENT_MD5_FIELDS, SHA256_THROUGH_MD5, termValue, tokenValue } from '../query/compile/sqlite.js';
import { hasWildcard } from '../query/values/glob.js';
import type { Anchor, ColumnAnchor } from './match.plan.js';

export function searchAnchors(predicate: Predicate): Anchor[] | null {
  switch (predicate.op) {
    case 'all':
    case 'not':
      return null;
    case 'none':
      return [];
    case 'or': {
      const each = predicate.children.map(searchAnchors);
      return each.some((a) => a === null) ? null : (each as Anchor[][]).flat();
    }
    case 'and':
      return mostSelective(predicate.children.map(searchAnchors));
    case 'field':
      return fieldAnchors(predicate);
  }
}

/** The anchored alternative that looks cheapest to probe and least likely to be present. */
function mostSelective(options: readonly (Anchor[] | null)[]): Anchor[] | null {
  let best: Anchor[] | null = null;
  for (const option of options) {
    if (option !== null && (best === null || cost(option) < cost(best))) best = option;
  }
  return best;
}

function cost(anchors: readonly Anchor[]): number {
  return anchors.reduce((sum, anchor) => sum + (anchor.kind === 'column'
    ? (anchor.match.kind === 'exact' ? 1 : 3)
    : (anchor.exact ? 2 : 4)), 0);
}

const COLUMN_OF_FIELD: Record<string, ColumnAnchor['column']> = {
  process_name: 'process_name', parent_name: 'parent_name', process_md5: 'md5', parent_md5: 'parent_md5', process_sha256: 'sha256',
};

function fieldAnchors(predicate: FieldPredicate): Anchor[] | null {
  const { field, match } = predicate;
  if (predicate.dynamic || predicate.source === 'binary' || match.kind === 'exists') return null;
  // A pattern of wildcards only would anchor on every value of its field.
  if (match.kind === 'wildcard' && literalLength(match.pattern) === 0) return null;
  if (predicate.source === 'event') {
    if (field === 'blocked_status') return [];
    return SHA256_THROUGH_MD5[field] ? null : [terms([field], field, match)];
  }
  const column = COLUMN_OF_FIELD[field];
  if (column) return columnAnchor(column, match);
  switch (field) {
    case 'path':
      return pathAnchor(match);
    case 'cmdline':
      return cmdlineAnchor(match);
    case 'md5':
      return [...columnAnchor('md5', match), ...columnAnchor('parent_md5', match), terms(EVENT_MD5_FIELDS, 'md5', match)];
    default:
      return null;
  }
}

function terms(fields: readonly string[], field: string, match: Match): Anchor {
  const where = termValue(field, match)!;
  return { kind: 'terms', fields: [...fields], where: { sql: where.text, params: [...where.params] }, processWide: false, exact: match.kind === 'exact' };
}

/** As loweredColumn compiles it: equality, a prefix, or a pattern; any other kind matches nothing. */
function columnAnchor(column: ColumnAnchor['column'], match: Match): Anchor[] {
  switch (match.kind) {
    case 'exact':
    case 'prefix':
      return [{ kind: 'column', column, match: { kind: match.kind, value: match.value } }];
    case 'wildcard':
      return [{ kind: 'column', column, match: { kind: 'wildcard', value: match.pattern } }];
    default:
      return [];
  }
}

/** The compiled path condition pins the process name when the query's last segment is literal. */
function pathAnchor(match: Match): Anchor[] | null {
  if (match.kind !== 'subpath' && match.kind !== 'subpath_wildcard') return [];
  const text = match.kind === 'subpath' ? match.value : match.pattern;
  const last = text.slice(text.lastIndexOf('\\') + 1);
  if (match.kind === 'subpath_wildcard' && (last === text || hasWildcard(last))) return null;
  return [{ kind: 'column', column: 'process_name', match: { kind: 'exact', value: last } }];
}

/**
 * A command line's words are posted on the segment holding the process's start, so the anchor is
 * any segment of the same process; of a phrase's tokens, the longest literal one.
 */
function cmdlineAnchor(match: Match): Anchor[] | null {
  if (match.kind !== 'tokens') return [];
  const literal = (token: string) => (match.wildcard ? literalLength(token) : token.length);
  const token = [...match.tokens].sort((a, b) => literal(b) - literal(a))[0];
  if (token === undefined) return [];
  if (literal(token) === 0) return null;
  const where = tokenValue(token, match.wildcard);
  const exact = !(match.wildcard && hasWildcard(token));
  return [{ kind: 'terms', fields: ['cmdline'], where: { sql: where.text, params: [...where.params] }, processWide: true, exact }];
}

function literalLength(pattern: string): number {
  return pattern.replace(/[*?]/gu, '').length;
}
