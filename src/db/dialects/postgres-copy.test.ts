/**
 * Binary COPY rows read back by a real PostgreSQL: random rows of every column type, with the
 * edges an encoder gets wrong (negative and ±(2^53−1) int8 values, NULLs, empty and non-ASCII
 * text, empty arrays), come back as they were written.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { freshMigratedPostgres } from '../../../test/support/postgres-migrated.js';
import { BinaryCopyRows, type CopyValue } from './postgres-copy.js';
import type { PostgresDatabase } from './postgres.js';

const COLUMNS = [['n', 'int8'], ['i', 'int4'], ['t', 'text'], ['b', 'bytea'], ['a', 'text[]']] as const;

const int8 = fc.oneof(
  fc.constantFrom(0, -1, 1, 2 ** 31, -(2 ** 31) - 1, 2 ** 32, -(2 ** 32), Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER),
  fc.maxSafeInteger(),
);
const text = fc.oneof(fc.constant(''), fc.string(), fc.string({ unit: 'grapheme' }).map((s) => s.replaceAll('\0', '')), fc.constantFrom('é', '日本語', '😀 x'));
const row = fc.tuple(
  fc.option(int8),
  fc.option(fc.integer()),
  fc.option(text),
  fc.option(fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes))),
  fc.option(fc.array(text, { maxLength: 5 })),
);

/** A row as `pg` reads it back: int8 as its decimal text. */
function asRead([n, i, t, b, a]: readonly CopyValue[]): unknown[] {
  return [n === null ? null : String(n), i, t, b, a];
}

describe('BinaryCopyRows', () => {
  let db: PostgresDatabase;
  before(async () => {
    db = await freshMigratedPostgres();
    await db.run('CREATE TABLE copy_check (k serial PRIMARY KEY, n bigint, i int, t text, b bytea, a text[])');
  });
  after(async () => db.close());

  it('sends rows that PostgreSQL reads back unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 30 }), async (rows) => {
        const copy = new BinaryCopyRows('copy_check', COLUMNS);
        for (const values of rows) copy.add(values);
        const client = await db.pool.connect();
        try {
          await client.query('TRUNCATE copy_check RESTART IDENTITY');
          await copy.send(client);
          const read = await client.query<Record<string, unknown>>('SELECT n, i, t, b, a FROM copy_check ORDER BY k');
          assert.deepEqual(read.rows.map((r) => [r.n, r.i, r.t, r.b, r.a]), rows.map(asRead));
        } finally {
          client.release();
        }
      }),
      { numRuns: 60 },
    );
  });

  it('refuses an int8 value that is not a safe integer', () => {
    const copy = new BinaryCopyRows('copy_check', [['n', 'int8']]);
    assert.throws(() => copy.add([1.5]), /not an int8/);
    assert.throws(() => copy.add([2 ** 53]), /not an int8/);
  });
});
