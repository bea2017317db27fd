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
  | 'payload_too_large'
  /** Something the server had to fetch (a feed) took too long. */
  | 'timeout';

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The `reason` clients see; the code unless a finer one says more (e.g. "malformed_json"). */
    readonly reason: string = code,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export class NotFoundError extends DomainError {
  constructor(message: string) {
    super('not_found', message);
  }
}

export class ConflictError extends DomainError {
  constructor(message: string) {
    super('conflict', message);
  }
}

export class ForbiddenError extends DomainError {
  constructor(message: string) {
    super('forbidden', message);
  }
}

/** Input that passed the schema but breaks a domain rule; the message names the field. */
export class InvalidRequestError extends DomainError {
  constructor(message: string) {
    super('invalid_request', message);
  }
}

export class UnauthorizedError extends DomainError {
  constructor(message = 'Invalid or missing API token') {
    super('unauthorized', message);
  }
}
