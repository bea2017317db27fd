/**
 * Driver errors that stores react to, independent of the dialect that raised them. Dialects
 * translate their driver's errors into these; anything else propagates unchanged (and becomes a
 * 500 that does not leak internals).
 */
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
