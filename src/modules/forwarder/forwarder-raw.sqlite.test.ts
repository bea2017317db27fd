/**
 * The forwarder's loader of the embedded store's chunks, on a real chunk file: a batch's chunks,
 * side by side in the file, come from one read of their span and are each exactly their bytes;
 * chunks far apart are read one by one; a chunk past the end of a file cut short, or in a file
 * that is gone, is left out.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, it } from 'node:test';
import { tempDir } from '../../../test/support/temp.js';
import { SqliteDatabase } from '../../db/dialects/sqlite.js';
import { chunkFilePath } from '../partitions/partition-files.js';
import type { ChunkRef } from './forwarder-raw.js';
import { sqliteChunkLoader } from './forwarder-raw.sqlite.js';

const db = SqliteDatabase.open(join(tempDir(), 'vigil.db'));
after(() => db.close());

const place = (file_id: number, byte_offset: number, byte_length: number) =>
  ({ file_id, byte_offset, byte_length }) as ChunkRef & { file_id: number; byte_offset: number; byte_length: number };

function writeChunkFile(partition: number, text: string): void {
  const path = chunkFilePath(db.connection.name, partition);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

it('reads each chunk of a batch as its bytes, side by side or far apart, and leaves out what its file lacks', () => {
  writeChunkFile(1, '[[1,2]]xx[[3,4]][[5,6]]');
  writeChunkFile(2, `[[7]]${'x'.repeat(1000)}[[8]]`);
  const loader = sqliteChunkLoader(db);
  const text = (bytes: string | Buffer | undefined) => bytes?.toString();
  // Out of file order, as a batch in key order can be; the last one lies past the end of its file.
  const near = [place(1, 9, 7), place(1, 0, 7), place(1, 16, 7), place(1, 20, 7)];
  const loaded = loader.load(near);
  assert.deepEqual(loaded.map(text), ['[[3,4]]', '[[1,2]]', '[[5,6]]', undefined]);
  const [second, first, third] = loaded as [Buffer, Buffer, Buffer];
  assert.ok(second.buffer === first.buffer && third.buffer === first.buffer, 'one read');
  assert.deepEqual([second.byteOffset - first.byteOffset, third.byteOffset - first.byteOffset], [9, 16], 'views of it, as the chunks lie in the file');
  assert.deepEqual(loader.load([place(2, 0, 5), place(2, 1005, 5)]).map(text), ['[[7]]', '[[8]]']);
  assert.deepEqual(loader.load([place(3, 0, 5), place(1, 0, 7)]).map(text), [undefined, '[[1,2]]']);
});
