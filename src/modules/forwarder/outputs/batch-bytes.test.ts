/** A batch's bytes are its texts' UTF-8, in order, however they fall on the joined strings' boundaries. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { BatchBytes } from './batch-bytes.js';

it('holds the UTF-8 of every text appended since the last reset, past the buffer it started with', () => {
  const batch = new BatchBytes();
  batch.append('stale');
  batch.reset();
  // Several megabytes of multi-byte text outgrow the first buffer and cross many joins.
  const texts = Array.from({ length: 40_000 }, (_, i) => `{"n":${i},"path":"c:\\\\données\\\\${'é'.repeat(i % 50)}","emoji":"🦉"}`);
  for (const text of texts) batch.appendLine(text);
  batch.append('tail');
  assert.equal(batch.bytes().toString('utf8'), `${texts.join('\n')}\ntail`);
  assert.equal(batch.reset().bytes().length, 0);
});
