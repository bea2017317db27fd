/** Live-response files' content on PostgreSQL: stored within the limit, read back, replaced, removed, and gone with its file row. */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { after, before, describe, it } from 'node:test';
import { registerSensors } from '../../../test/support/event-stores.js';
import { freshMigratedPostgres } from '../../../test/support/postgres-migrated.js';
import type { PostgresDatabase } from '../../db/dialects/postgres.js';
import { ContentTooLargeError } from './live-response-files.js';
import { PostgresLiveResponseFiles } from './live-response-files.postgres.js';

describe('live-response files on PostgreSQL', () => {
  let db: PostgresDatabase;
  let files: PostgresLiveResponseFiles;
  const fileRow = async () => (await db.get<{ id: number }>(
    "INSERT INTO live_response_files (session_id, file_name, created_ms) VALUES (1, 'memdump', 0) RETURNING id",
  ))!.id;
  before(async () => {
    db = await freshMigratedPostgres();
    await registerSensors(db);
    await db.run("INSERT INTO live_response_sessions (id, sensor_id, status, user_id, username, created_ms, last_activity_ms) VALUES (1, 1, 'active', 1, 'a', 0, 0)");
    files = new PostgresLiveResponseFiles(db, 8);
  });
  after(() => db.close());

  it('stores a stream within the limit and reads it back; a second put replaces it; remove drops it', async () => {
    const id = await fileRow();
    assert.equal(await files.put(id, Readable.from([Buffer.from('abc'), Buffer.from('de')])), 5);
    const opened = await files.open(id);
    assert.equal(opened?.size, 5);
    assert.equal(await text(opened.stream), 'abcde');
    assert.equal(await files.put(id, Readable.from([Buffer.from('xy')])), 2);
    assert.equal((await files.open(id))?.size, 2);
    await files.remove([id]);
    assert.equal(await files.open(id), undefined);
    await files.remove([]);
  });

  it('refuses content past the limit and keeps nothing', async () => {
    const id = await fileRow();
    await assert.rejects(files.put(id, Readable.from([Buffer.from('12345'), Buffer.from('6789')])), ContentTooLargeError);
    assert.equal(await files.open(id), undefined);
  });

  it('drops the content with its file row', async () => {
    const id = await fileRow();
    await files.put(id, Readable.from([Buffer.from('a')]));
    await db.run('DELETE FROM live_response_files WHERE id = ?', [id]);
    assert.equal(await files.open(id), undefined);
  });
});
