/**
 * Event terms on PostgreSQL: which `field:value` strings of segment_terms a condition on one or
 * more term fields stands for, as an array the GIN index is asked with (`terms && …`). An exact
 * value is its own string; anything else is read from the dictionary `event_terms`, where the
 * values are stored in the query's normal form (src/ingest/terms.ts).
 */
import type { Match } from '../analysis.js';
import { joinFragments, raw, sql, type Fragment } from './fragment.js';
import { POSTGRES, PG_TRUE } from './postgres-shared.js';
import { dictionaryValue } from './shared-terms.js';
import type { TermSpec } from './shared-process.js';

export interface TermLookup {
  /** A text[] expression. */
  readonly array: Fragment;
}

export type { TermSpec } from './shared-process.js';

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
  // A CASE keeps other fields' values from being cast.
  return dictionaryValue(POSTGRES, raw("CASE WHEN value ~ '^[0-9]{1,9}$' THEN value::integer END"), field, match) ?? PG_TRUE;
}
