/**
 * Event terms on PostgreSQL: which `field:value` strings of segment_terms a condition on one or
 * more term fields stands for, as an array the GIN index is asked with (`terms && …`). An exact
 * value is its own string; anything else is read from the dictionary `event_terms`, where the
 * values are stored in the query's normal form (src/ingest/terms.ts).
 */
import type { Match } from '../analysis.js';
import { joinFragments, raw, sql, type Fragment } from './fragment.js';
import { bounded, likeLiteral, likePattern, PG_FALSE } from './postgres-shared.js';

export interface TermLookup {
  /** A text[] expression. */
  readonly array: Fragment;
}

export type TermSpec =
  | { readonly kind: 'any' }
  | { readonly kind: 'where'; readonly condition: Fragment }
  | { readonly kind: 'match'; readonly field: string; readonly match: Match };

export function termValue(fields: readonly string[], spec: TermSpec): TermLookup {
  if (spec.kind === 'any') return fromDictionary(fields, undefined);
  if (spec.kind === 'where') return fromDictionary(fields, spec.condition);
  const { field, match } = spec;
  if (match.kind === 'exact') return exactly(fields, [match.value]);
  if (match.kind === 'number_range' && field === 'ipport' && match.min !== null && match.min === match.max) return exactly(fields, [String(match.min)]);
  if (match.kind === 'domain' && match.before === 'none' && match.after === 'none') return exactly(fields, [match.labels.join('.')]);
  return fromDictionary(fields, valueCondition(field, match));
}

function exactly(fields: readonly string[], values: readonly string[]): TermLookup {
  const terms = fields.flatMap((f) => values.map((v) => sql`${`${f}:${v}`}`));
  return { array: sql`ARRAY[${joinFragments(terms, ', ')}]::text[]` };
}

function fromDictionary(fields: readonly string[], condition: Fragment | undefined): TermLookup {
  const fieldList = fields.length === 1 ? sql`field = ${fields[0]!}` : sql`field IN (${joinFragments(fields.map((f) => sql`${f}`), ', ')})`;
  const where = condition ? sql`${fieldList} AND ${condition}` : fieldList;
  return { array: sql`ARRAY(SELECT field || ':' || value FROM event_terms WHERE ${where})` };
}

/** A condition on a dictionary `value`, for everything but exact values. */
function valueCondition(field: string, match: Match): Fragment {
  switch (match.kind) {
    case 'exists':
      return raw('TRUE');
    case 'prefix':
      return sql`value LIKE ${`${likeLiteral(match.value)}%`}`;
    case 'wildcard':
      return sql`value LIKE ${likePattern(match.pattern)}`;
    case 'subpath':
      return sql`(value = ${match.value} OR value LIKE ${`%\\\\${likeLiteral(match.value)}`})`;
    case 'subpath_wildcard':
      return sql`(value LIKE ${likePattern(match.pattern)} OR value LIKE ${`%\\\\${likePattern(match.pattern)}`})`;
    case 'domain':
      return domainValue(match);
    case 'ipv4_range':
      return sql`value BETWEEN ${hex(match.first, 8)} AND ${hex(match.last, 8)}`;
    case 'ipv6_range':
      return sql`value BETWEEN ${hex(match.first, 32)} AND ${hex(match.last, 32)}`;
    case 'number_range':
      // Ports are plain decimals; the CASE keeps other fields' values from being cast.
      return field === 'ipport' ? bounded(raw("CASE WHEN value ~ '^[0-9]{1,9}$' THEN value::integer END"), match.min, match.max) : PG_FALSE;
    default:
      return PG_FALSE;
  }
}

const hex = (value: number | bigint, digits: number) => value.toString(16).padStart(digits, '0');

/** Domain label anchors (values/domain.ts) as LIKE patterns over whole stored domains. */
function domainValue(match: Extract<Match, { kind: 'domain' }>): Fragment {
  const labels = likeLiteral(match.labels.join('.'));
  const sides = (rule: string) => (rule === 'any' ? [false, true] : [rule === 'some']);
  const patterns: Fragment[] = [];
  for (const before of sides(match.before)) {
    for (const after of sides(match.after)) {
      patterns.push(before || after ? sql`value LIKE ${`${before ? '%.' : ''}${labels}${after ? '.%' : ''}`}` : sql`value = ${match.labels.join('.')}`);
    }
  }
  return patterns.length === 1 ? patterns[0]! : sql`(${joinFragments(patterns, ' OR ')})`;
}
