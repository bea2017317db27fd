/**
 * Domain errors with stable codes. Services throw these; the one HTTP error handler
 * (src/http/error-handler.ts) maps each code to a status and a Carbon Black–shaped body.
 */
export type ErrorCode =
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'invalid_request'
  | 'query_malformed_syntax'
  | 'precondition_failed'
  | 'payload_too_large'
  /** Something the server had to fetch (a feed) took too long. */
  | 'timeout'
  /** A search ran past the server's time limit and was stopped. */
  | 'query_timeout'
  /** The server cannot take the request now; the client may send it again later. */
  | 'unavailable'
  /** The client must wait before trying again (failed logins slow the next attempt). */
  | 'too_many_requests';

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The `reason` clients see; the code unless a finer one says more (e.g. "malformed_json"). */
    readonly reason: string = code,
    /**
     * More for the body beside reason and message, for clients that can use it (a refused query's
     * position, for the console to point at); clients that read only reason are unaffected.
     */
    readonly details?: Readonly<Record<string, string | number>>,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export class NotFoundError extends DomainError {
  /**
   * `plainText`: answer the message itself as the body instead of the usual Not Found page, where
   * clients read it (cbapi's live response recovers from a 404 whose text starts with "Session").
   */
  constructor(message: string, readonly plainText = false) {
    super('not_found', message);
  }
}

export class ConflictError extends DomainError {
  constructor(message: string) {
    super('conflict', message);
  }
}

export class ForbiddenError extends DomainError {
  constructor(message: string, reason = 'forbidden') {
    super('forbidden', message, reason);
  }
}

/** Input that passed the schema but breaks a domain rule; the message names the field. */
export class InvalidRequestError extends DomainError {
  /**
   * `body`: answer this JSON instead of the usual `{reason, message}`, where Carbon Black had a
   * body of its own that clients read (a refused license: `{"result": "failure", …}`).
   */
  constructor(message: string, readonly body?: Readonly<Record<string, unknown>>) {
    super('invalid_request', message);
  }
}

export class UnauthorizedError extends DomainError {
  constructor(message = 'Invalid or missing API token') {
    super('unauthorized', message);
  }
}

/** A feature the server has switched off (live response with liveResponseEnabled false). */
export class PreconditionFailedError extends DomainError {
  constructor(message: string, reason: string) {
    super('precondition_failed', message, reason);
  }
}

/** A search stopped at the server's time limit (config searchTimeLimitMs). */
export class QueryTimeoutError extends DomainError {
  constructor(limitMs: number) {
    super('query_timeout', `The search took longer than the server's limit of ${limitMs / 1000} s and was stopped; narrow the query or its time range`);
  }
}

/**
 * The request was not carried out because the server is busy (its database's write lock stayed
 * taken past the configured wait); nothing of it took effect and the client may send it again
 * after `retryAfterSeconds`.
 */
export class UnavailableError extends DomainError {
  constructor(message: string, reason: string, readonly retryAfterSeconds: number) {
    super('unavailable', message, reason);
  }
}

/** Too many failed attempts: the request was refused unread and may be sent again after `retryAfterSeconds`. */
export class TooManyRequestsError extends DomainError {
  constructor(message: string, readonly retryAfterSeconds: number) {
    super('too_many_requests', message);
  }
}
