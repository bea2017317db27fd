/**
 * Errors that mean the database connection is gone become DatabaseUnavailable (503 with
 * Retry-After, and "retry" to sensors), whichever layer reports them: PostgreSQL's SQLSTATE, the
 * socket, or the driver about a client it already ended. Others pass through as they are.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { DatabaseUnavailable } from '../errors.js';
import { translatePostgresError } from './postgres.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

it('takes a cut connection, however it is reported, for an unavailable database', () => {
  for (const error of [
    withCode('terminating connection due to administrator command', '57P01'),
    withCode('write EPIPE', 'EPIPE'),
    withCode('read ECONNRESET', 'ECONNRESET'),
    new Error('Connection terminated unexpectedly'),
    new Error('Client has encountered a connection error and is not queryable'),
    new Error('Client was closed and is not queryable'),
  ]) {
    assert.ok(translatePostgresError(error) instanceof DatabaseUnavailable, error.message);
  }
  const syntax = withCode('syntax error at or near "SELEC"', '42601');
  assert.equal(translatePostgresError(syntax), syntax);
});
