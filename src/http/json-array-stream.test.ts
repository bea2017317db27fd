/** A JSON array sent a page at a time reads as the array itself; a failure before the first page is the caller's to answer. */
import assert from 'node:assert/strict';
import { text } from 'node:stream/consumers';
import { it } from 'node:test';
import { jsonArrayStream } from './json-array-stream.js';

async function* pagesOf<T>(...pages: T[][]): AsyncGenerator<T[]> {
  for (const page of pages) yield page;
}

it('sends the pages as one JSON array, empty pages and no pages included', async () => {
  const cases: { id: number; name: string | null }[][][] = [
    [],
    [[]],
    [[{ id: 1, name: 'a"b' }]],
    [[{ id: 1, name: 'a' }, { id: 2, name: null }], [], [{ id: 3, name: 'é' }]],
  ];
  for (const pages of cases) {
    const sent = await text(await jsonArrayStream(pagesOf(...pages)));
    assert.deepEqual(JSON.parse(sent), pages.flat(), sent);
  }
});

it('fails before sending anything when the first page cannot be read', async () => {
  const failing: AsyncIterator<number[]> = { next: () => Promise.reject(new Error('store down')) };
  await assert.rejects(jsonArrayStream(failing), /store down/);
});
