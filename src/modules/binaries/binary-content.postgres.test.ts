/** Binaries' content on PostgreSQL: a verified staged file goes into the database and any server reads it back. */
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { text } from 'node:stream/consumers';
import { after, before, describe, it } from 'node:test';
import { freshMigratedPostgres } from '../../../test/support/postgres-migrated.js';
import { tempDir } from '../../../test/support/temp.js';
import type { PostgresDatabase } from '../../db/dialects/postgres.js';
import { PostgresBinaryContent } from './binary-content.postgres.js';

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
});
