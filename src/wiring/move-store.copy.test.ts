/**
 * The text COPY of vigil migrate-store on a real PostgreSQL: values holding COPY's own delimiters
 * and escapes (tabs, line ends, backslashes, as Windows paths and command lines do), bytes, nulls
 * and integers past 2^53 arrive unchanged.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { PostgresDatabase } from '../db/dialects/postgres.js';
import { freshMigratedPostgres } from '../../test/support/postgres-migrated.js';
import { copyText } from './move-store.copy.js';

let db: PostgresDatabase;
before(async () => (db = await freshMigratedPostgres()));
after(async () => db.close());

test('text COPY carries delimiters, escapes, bytes, nulls and large integers unchanged', async () => {
  const rows: [string | null, Buffer | null, bigint | null][] = [
    ['C:\\Windows\\system32\\cmd.exe /c "echo\ta"\r\nnext line\\n', Buffer.from([0, 9, 10, 92, 255]), 2n ** 62n + 1n],
    ['\\N', Buffer.alloc(0), -1n],
    [null, null, null],
  ];
  await db.exec('CREATE TABLE copied (t TEXT, b BYTEA, n BIGINT, position SERIAL)');
  const client = await db.pool.connect();
  try {
    assert.equal(await copyText(client, 'copied', ['t', 'b', 'n'], rows), 3);
  } finally {
    client.release();
  }
  const back = await db.pool.query<{ t: string | null; b: Buffer | null; n: string | null }>('SELECT t, b, n::text AS n FROM copied ORDER BY position');
  assert.deepEqual(back.rows.map((r) => [r.t, r.b, r.n === null ? null : BigInt(r.n)]), rows);
});
