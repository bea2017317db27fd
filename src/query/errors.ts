/**
 * Query errors. Every way a query can be refused is a QueryError with a 0-based position (a
 * UTF-16 offset into the text the caller passed), so a client can point at the culprit. The HTTP
 * layer shows them all as 400 {"reason": "query_malformed_syntax"}, which cbapi turns into its
 * QuerySyntaxError.
 */
import { DomainError } from '../domain/errors.js';

export type QueryErrorCode =
  /** The text does not follow the grammar (unbalanced parentheses, dangling operator, …). */
  | 'syntax'
  /** Longer than the input limit, nested deeper than the parser allows, or more conditions than a search may hold (budget.ts). */
  | 'too_large'
  /** A field name the catalog does not know, or one the searched index does not have. */
  | 'unknown_field'
  /** A value the field's type cannot hold (a bad date, a 31-digit md5, a range on a text field). */
  | 'invalid_value'
  /** A leading wildcard while the server refuses them (Carbon Black's default since 6.2.3). */
  | 'leading_wildcard';

export class QueryError extends Error {
  constructor(
    readonly code: QueryErrorCode,
    /** What is wrong, without the position. */
    readonly detail: string,
    readonly position: number,
    /** Which parameter held the text: "q", or "cb.q.<field>" for an extra term. */
    readonly source = 'q',
    /** A way out, e.g. the field name the user probably meant. */
    readonly hint?: string,
  ) {
    const where = source === 'q' ? `at position ${position}` : `at position ${position} of ${source}`;
    super(`${detail} ${where}${hint ? `; ${hint}` : ''}`);
    this.name = 'QueryError';
  }
}

/**
 * The domain error the HTTP layer maps to 400 {"reason":"query_malformed_syntax","message":…,
 * "position":…,"parameter":…}: cbapi reads only reason; the console marks the position.
 */
export function toDomainError(error: QueryError): DomainError {
  return new DomainError('query_malformed_syntax', error.message, undefined, { position: error.position, parameter: error.source });
}

/** Runs `work`, turning its QueryErrors into the domain error a client is shown. */
export function withQueryErrors<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof QueryError) throw toDomainError(error);
    throw error;
  }
}
