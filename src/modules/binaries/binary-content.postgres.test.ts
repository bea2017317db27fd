/** Binaries' content on PostgreSQL: a verified staged file goes into the database and any server reads it back. */
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { text } from 'node:stream/consumers';
import { after, before, describe, it } from 'node:test';
import { freshMigratedPostgres } from '../../../test/support/postgres-migrated.js';
import { dropTestDatabase, freshTestDatabase } from '../../../test/support/postgres.js';
import { tempDir } from '../../../test/support/temp.js';
import { PostgresDatabase } from '../../db/dialects/postgres.js';
import { migrate } from '../../db/migrate.js';
import { postgresMigrations } from '../../db/migrations/postgres.js';
import { BINARY_PIECE_BYTES, PostgresBinaryContent } from './binary-content.postgres.js';

const MD5 = 'a'.repeat(32);

describe('binary content on PostgreSQL', () => {
  let db: PostgresDatabase;
  before(async () => {
    db = await freshMigratedPostgres();
  });
  after(() => db.close());

  it('keeps adopted content in the database, where a server with another data dir reads it', async () => {
    const receiving = new PostgresBinaryContent(db, tempDir('vigil-bin-a-'));
    const staged = await receiving.stagingPath();
    writeFileSync(staged, 'MZ content');
    assert.equal(await receiving.has(MD5), false);
    await receiving.adopt(MD5, staged);
    assert.equal(existsSync(staged), false, 'the staging file is gone');

    const other = new PostgresBinaryContent(db, tempDir('vigil-bin-b-'));
    assert.equal(await other.has(MD5), true);
    const opened = await other.open(MD5);
    assert.equal(opened?.size, 10);
    assert.equal(await text(opened.stream), 'MZ content');
    assert.equal(await other.open('b'.repeat(32)), undefined);
  });

  it('keeps the first content of an md5 and discards a staged file not adopted', async () => {
    const content = new PostgresBinaryContent(db, tempDir('vigil-bin-c-'));
    const again = await content.stagingPath();
    writeFileSync(again, 'MZ content');
    await content.adopt(MD5, again);
    assert.equal((await content.open(MD5))?.size, 10);
    const unused = await content.stagingPath();
    writeFileSync(unused, 'x');
    await content.discard(unused);
    assert.equal(existsSync(unused), false);
  });

  it('stores content in pieces and reads it back whole: empty, exactly two pieces, and a piece and a bit', async () => {
    const content = new PostgresBinaryContent(db, tempDir('vigil-bin-d-'));
    const cases = [Buffer.alloc(0), Buffer.alloc(2 * BINARY_PIECE_BYTES, 7), Buffer.alloc(BINARY_PIECE_BYTES + 3, 9)];
    for (const [i, bytes] of cases.entries()) {
      const md5 = String(i).repeat(32);
      const staged = await content.stagingPath();
      writeFileSync(staged, bytes);
      await content.adopt(md5, staged);
      const pieces = await db.get<{ count: number }>('SELECT COUNT(*)::int AS count FROM binary_content_pieces WHERE md5 = ?', [md5]);
      assert.equal(pieces?.count, Math.max(1, Math.ceil(bytes.length / BINARY_PIECE_BYTES)));
      const opened = await content.open(md5);
      assert.equal(opened?.size, bytes.length);
      const chunks: Buffer[] = [];
      for await (const chunk of opened.stream) chunks.push(chunk as Buffer);
      assert.ok(Buffer.concat(chunks).equals(bytes));
    }
  });
});

describe('binary content stored whole before PostgreSQL schema 7', () => {
  it('becomes one piece and reads back as it was', async () => {
    const database = await freshTestDatabase('empty', async () => undefined);
    const old = PostgresDatabase.open(database.url, { poolSize: 1 });
    try {
      await migrate(old, postgresMigrations.filter((m) => m.version < 7));
      await old.run('INSERT INTO binary_content (md5, content) VALUES (?, ?)', [MD5, Buffer.from('MZ before')]);
      await migrate(old, postgresMigrations);
      const opened = await new PostgresBinaryContent(old, tempDir('vigil-bin-e-')).open(MD5);
      assert.equal(opened?.size, 9);
      assert.equal(await text(opened.stream), 'MZ before');
    } finally {
      await old.close();
      await dropTestDatabase(database.name);
    }
  });
});
