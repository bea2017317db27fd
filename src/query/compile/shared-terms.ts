/**
 * A condition on a term dictionary's `value` (event_terms: values stored in the query's normal
 * form, src/ingest/terms.ts), shared by the dialects; each gives its pattern syntax and how a
 * stored port is read as a number.
 */
import type { Match } from '../analysis.js';
import { joinFragments, sql, type Fragment } from './fragment.js';
import { boundedIn, type ConditionDialect } from './shared-conditions.js';

/** The condition on `value`, or undefined for "any value". */
export function dictionaryValue(dialect: ConditionDialect, portNumber: Fragment, field: string, match: Match): Fragment | undefined {
  const { operator, anyRun, literal, fromQuery } = dialect.patterns;
  const like = (pattern: string) => sql`value ${operator} ${pattern}`;
  switch (match.kind) {
    case 'exists':
      return undefined;
    case 'exact':
      return sql`value = ${match.value}`;
    case 'prefix':
      return like(`${literal(match.value)}${anyRun}`);
    case 'wildcard':
      return like(fromQuery(match.pattern));
    case 'subpath':
      return sql`(value = ${match.value} OR ${like(`${anyRun}${literal(`\\${match.value}`)}`)})`;
    case 'subpath_wildcard':
      return sql`(${like(fromQuery(match.pattern))} OR ${like(`${anyRun}${literal('\\')}${fromQuery(match.pattern)}`)})`;
    case 'domain':
      return domainValue(dialect, match);
    case 'ipv4_range':
      return sql`value BETWEEN ${hex(match.first, 8)} AND ${hex(match.last, 8)}`;
    case 'ipv6_range':
      return sql`value BETWEEN ${hex(match.first, 32)} AND ${hex(match.last, 32)}`;
    case 'number_range':
      // Ports are stored as plain decimals: one port is one dictionary value.
      if (field !== 'ipport') return dialect.false;
      return match.min !== null && match.min === match.max ? sql`value = ${String(match.min)}` : boundedIn(dialect, portNumber, match.min, match.max);
    default:
      return dialect.false;
  }
}

const hex = (value: number | bigint, digits: number) => value.toString(16).padStart(digits, '0');

/** Domain label anchors (values/domain.ts) as patterns over whole stored domains. */
function domainValue(dialect: ConditionDialect, match: Extract<Match, { kind: 'domain' }>): Fragment {
  const { operator, anyRun, literal } = dialect.patterns;
  const labels = literal(match.labels.join('.'));
  const sides = (rule: string) => (rule === 'any' ? [false, true] : [rule === 'some']);
  const patterns: Fragment[] = [];
  for (const before of sides(match.before)) {
    for (const after of sides(match.after)) {
      const pattern = `${before ? `${anyRun}.` : ''}${labels}${after ? `.${anyRun}` : ''}`;
      patterns.push(before || after ? sql`value ${operator} ${pattern}` : sql`value = ${match.labels.join('.')}`);
    }
  }
  return patterns.length === 1 ? patterns[0]! : sql`(${joinFragments(patterns, ' OR ')})`;
}
