/**
 * Driver errors that stores react to, independent of the dialect that raised them. Dialects
 * translate their driver's errors into these; anything else propagates unchanged (and becomes a
 * 500 that does not leak internals). DatabaseBusy is a domain error already: no store or service
 * can do better than to let it reach the client as a 503.
 */
import { UnavailableError } from '../domain/errors.js';

/** What a client told the database is busy waits before sending the request again. */
const DATABASE_BUSY_RETRY_AFTER_S = 2;

export class UniqueViolation extends Error {
  constructor(cause: unknown) {
    super('unique constraint violated', { cause });
    this.name = 'UniqueViolation';
  }
}

export class ForeignKeyViolation extends Error {
  constructor(cause: unknown) {
    super('foreign key constraint violated', { cause });
    this.name = 'ForeignKeyViolation';
  }
}

/** A read ran past the read pool's time limit and was abandoned. */
export class ReadTimeout extends Error {
  constructor(readonly limitMs: number) {
    super(`the read took longer than its limit of ${limitMs} ms`);
    this.name = 'ReadTimeout';
  }
}

/**
 * The write lock stayed taken (by the event writer, a bulk change, another process) past the
 * connection's wait. Nothing of the statement or transaction took effect; clients get 503 with
 * Retry-After and may send the request again.
 */
export class DatabaseBusy extends UnavailableError {
  constructor(cause: unknown) {
    super('The database is busy with other writes; try again shortly', 'database_busy', DATABASE_BUSY_RETRY_AFTER_S);
    this.name = 'DatabaseBusy';
    this.cause = cause;
  }
}

/** What a client told the database cannot be reached waits before sending the request again. */
const DATABASE_UNAVAILABLE_RETRY_AFTER_S = 5;

/**
 * The database server could not be reached or went away (a restart, a failover, the network).
 * Nothing of the statement or transaction is known to have taken effect unless it committed;
 * clients get 503 with Retry-After, and sensors send their batch again.
 */
export class DatabaseUnavailable extends UnavailableError {
  constructor(cause: unknown) {
    super('The database cannot be reached; try again shortly', 'database_unavailable', DATABASE_UNAVAILABLE_RETRY_AFTER_S);
    this.name = 'DatabaseUnavailable';
    this.cause = cause;
  }
}
