/**
 * How much one search may ask of the store, counted as conditions: one for each field a term is
 * searched in (a bare term once per default field of the index, a dozen to twenty) and one for each
 * word of a phrase (the command line looks each word up on its own). Every condition compiles to
 * its own lookup with its own bound values, so without a bound a query well inside the input limit
 * (a thousand bare terms are 5 KB) ran out of SQLite's 32,766 bound values, or ran for tens of
 * seconds on a store of a few processes. At the limit a search binds well under SQLite's maximum
 * and, on a small store, plans and runs in a fraction of a second, while any list of named hashes
 * that fits in the input limit (some 1,600 `md5:` terms) is still within it. The analyzer spends
 * the budget as it builds each predicate, so a refused query costs little to analyze.
 */
import type { FieldPredicate } from './analysis.js';
import { QueryError } from './errors.js';

export const MAX_CONDITIONS = 2_048;

/** The conditions spent so far by one request; its parts (q, cb.q.*) share one budget. */
export class ConditionBudget {
  private spent = 0;

  constructor(readonly max: number = MAX_CONDITIONS) {}

  /** Counts `predicate`, refusing the query at its term once the total passes the limit. */
  spend(predicate: FieldPredicate, source: string): FieldPredicate {
    const { match } = predicate;
    this.spent += match.kind === 'tokens' ? Math.max(1, match.tokens.length) : 1;
    if (this.spent > this.max) {
      throw new QueryError('too_large', `Query searches more than ${this.max} conditions`, predicate.span.start, source,
        'a term without a field counts once for each default field it is searched in; name the field to search fewer');
    }
    return predicate;
  }
}
