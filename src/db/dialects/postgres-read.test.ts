/** A snapshot read on PostgreSQL under a time limit: a statement past it is cancelled, and a search's read says so as a 504. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freshMigratedPostgres } from '../../../test/support/postgres-migrated.js';
import { QueryTimeoutError } from '../../domain/errors.js';
import { ReadTimeout } from '../errors.js';
import type { PostgresDatabase } from './postgres.js';
import { readSnapshot, timedRead } from './postgres-read.js';

describe('PostgreSQL snapshot reads', () => {
  let db: PostgresDatabase;
  before(async () => {
    db = await freshMigratedPostgres();
  });
  after(() => db.close());

  it('cancels a statement past the time limit with ReadTimeout, and leaves the connection usable', async () => {
    await assert.rejects(readSnapshot(db, (reader) => reader.all('SELECT pg_sleep(2)'), 50), (error) => error instanceof ReadTimeout && error.limitMs === 50);
    await assert.rejects(timedRead(() => readSnapshot(db, (reader) => reader.all('SELECT pg_sleep(2)'), 50)), QueryTimeoutError);
    assert.deepEqual(await readSnapshot(db, (reader) => reader.all<{ n: number }>('SELECT 1 AS n'), 5_000), [{ n: 1 }]);
  });

  it('lets a statement run as long as it takes without a limit', async () => {
    assert.deepEqual(await readSnapshot(db, (reader) => reader.all<{ n: number }>('SELECT 1 AS n FROM pg_sleep(0.1)')), [{ n: 1 }]);
  });
});
