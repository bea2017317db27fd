/**
 * Analyzed predicates (src/query/analysis.ts) → a SQLite WHERE clause over a record table such as
 * alerts or threat reports, with every value a bound parameter. Each searchable field maps to a
 * column spec saying how the table holds it; the module that owns the table writes that map
 * (alert-query.sqlite.ts, threat-report-query.sqlite.ts). LIKE patterns use `\` as their escape.
 */
import { joinConditions, raw } from '../query/compile/fragment.js';
import type { Match, Predicate } from '../query/index.js';
import type { SqlCondition, SqlValue } from './database.js';

export type ColumnSpec =
  /** A string held as the query's normal form (lower case), or folded with lower() when `fold`. */
  | { readonly kind: 'text'; readonly sql: string; readonly fold?: boolean }
  /** A number: counts, ids, and times in epoch ms. */
  | { readonly kind: 'number'; readonly sql: string }
  | { readonly kind: 'bool'; readonly sql: string }
  /** A path in normalizePath form, matched with its trailing sub-paths. */
  | { readonly kind: 'path'; readonly sql: string }
  /** A JSON array of text tokens (textTokens), matched as a run of consecutive tokens. */
  | { readonly kind: 'tokens'; readonly sql: string }
  /** A domain without surrounding dots, matched by labels. */
  | { readonly kind: 'domain'; readonly sql: string }
  /** An address as fixed-width hex (8 digits IPv4, 32 IPv6), compared as text. */
  | { readonly kind: 'address'; readonly sql: string; readonly digits: 8 | 32 }
  /** Values in another table: the record matches when one of its rows there does. */
  | { readonly kind: 'related'; readonly from: string; readonly link: string; readonly column: ColumnSpec };

/** A longer phrase is matched by its first tokens: each further one joins the token list with itself again. */
const MAX_PHRASE_TOKENS = 12;

export function compileRecordPredicate(predicate: Predicate, columns: Readonly<Record<string, ColumnSpec>>): SqlCondition {
  const params: SqlValue[] = [];
  const walk = (node: Predicate): string => {
    switch (node.op) {
      case 'all':
        return '1';
      case 'none':
        return '0';
      // Balanced, as process search joins them: a flat chain of a thousand terms is deeper than
      // SQLite's expression limit. Parameters stay in the order walk() pushed them.
      case 'and':
        return `(${joinConditions(node.children.map((child) => raw(walk(child))), 'AND').text})`;
      case 'or':
        return `(${joinConditions(node.children.map((child) => raw(walk(child))), 'OR').text})`;
      case 'not':
        // A missing value (NULL) is "not a match", so its negation is a match.
        return `NOT COALESCE(${walk(node.child)}, 0)`;
      case 'field': {
        const column = columns[node.field];
        if (!column) throw new Error(`No column for the field ${node.field}`);
        return condition(column, node.match, params);
      }
    }
  };
  return { sql: walk(predicate), params };
}

function condition(column: ColumnSpec, match: Match, params: SqlValue[]): string {
  const bind = (value: SqlValue): string => {
    params.push(value);
    return '?';
  };
  if (column.kind === 'related') {
    return `EXISTS (SELECT 1 FROM ${column.from} WHERE ${column.link} AND ${condition(column.column, match, params)})`;
  }
  if (match.kind === 'exists') {
    return column.kind === 'text' || column.kind === 'path' ? `(${column.sql} IS NOT NULL AND ${column.sql} <> '')` : `${column.sql} IS NOT NULL`;
  }
  const text = column.kind === 'text' && column.fold ? `lower(${column.sql})` : column.sql;
  switch (match.kind) {
    case 'exact':
      return `${text} = ${bind(match.value)}`;
    case 'prefix':
      return `${text} LIKE ${bind(escapeLike(match.value) + '%')} ESCAPE '\\'`;
    case 'wildcard':
      return `${text} LIKE ${bind(globToLike(match.pattern))} ESCAPE '\\'`;
    case 'subpath':
      return `(${text} = ${bind(match.value)} OR ${text} LIKE ${bind('%\\\\' + escapeLike(match.value))} ESCAPE '\\')`;
    case 'subpath_wildcard': {
      const pattern = globToLike(match.pattern);
      return `(${text} LIKE ${bind(pattern)} ESCAPE '\\' OR ${text} LIKE ${bind('%\\\\' + pattern)} ESCAPE '\\')`;
    }
    case 'tokens':
      return tokens(column.sql, match.tokens, match.wildcard, bind);
    case 'domain': {
      const anchor = { none: '', some: '_%', any: '%' } as const;
      const pattern = `${anchor[match.before]}.${escapeLike(match.labels.join('.'))}.${anchor[match.after]}`;
      return `('.' || ${column.sql} || '.') LIKE ${bind(pattern)} ESCAPE '\\'`;
    }
    case 'number_range':
    case 'long_range':
    case 'time_range': {
      const [low, high, below] = match.kind === 'time_range' ? [match.from, match.to, '<'] : [match.min, match.max, '<='];
      const parts = [
        ...(low === null ? [] : [`${column.sql} >= ${bind(low)}`]),
        ...(high === null ? [] : [`${column.sql} ${below} ${bind(high)}`]),
      ];
      return parts.length === 0 ? `${column.sql} IS NOT NULL` : `(${parts.join(' AND ')})`;
    }
    case 'ipv4_range':
    case 'ipv6_range': {
      const digits = match.kind === 'ipv4_range' ? 8 : 32;
      if (column.kind !== 'address' || column.digits !== digits) return '0';
      const hex = (value: number | bigint) => value.toString(16).padStart(digits, '0');
      return `(${column.sql} >= ${bind(hex(match.first))} AND ${column.sql} <= ${bind(hex(match.last))})`;
    }
    case 'bool':
      return `${column.sql} = ${bind(match.value ? 1 : 0)}`;
  }
}

/**
 * A run of consecutive tokens: the token list joined with itself once per further token. Query
 * tokens hold letters, digits and the wildcards only (textQueryTokens), so as GLOB patterns they
 * need no escaping.
 */
function tokens(sql: string, wanted: readonly string[], wildcard: boolean, bind: (value: SqlValue) => string): string {
  const run = wanted.slice(0, MAX_PHRASE_TOKENS);
  const from = [`json_each(${sql}) t0`, ...run.slice(1).map((_, i) => `JOIN json_each(${sql}) t${i + 1} ON t${i + 1}.key = t${i}.key + 1`)];
  const tests = run.map((token, i) => (wildcard ? `t${i}.value GLOB ${bind(token)}` : `t${i}.value = ${bind(token)}`));
  return `EXISTS (SELECT 1 FROM ${from.join(' ')} WHERE ${tests.join(' AND ')})`;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}

/** The query language's `*` and `?` as a LIKE pattern. */
function globToLike(pattern: string): string {
  return [...pattern].map((char) => (char === '*' ? '%' : char === '?' ? '_' : escapeLike(char))).join('');
}
