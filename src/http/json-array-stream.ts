/**
 * A JSON array sent as it is made, a page of items at a time: a listing of thousands (10,000
 * sensors make 13 MB) serialized in one piece would hold the request thread for hundreds of
 * milliseconds. The first page is read before anything is sent, so that a failure to start is
 * still answered with its status; a failure later can only end the response early.
 *
 * Items go out as JSON.stringify writes them: the route's response schema documents them but does
 * not filter them, so the pages must hold exactly the schema's fields (a test compares them).
 */
import { Readable } from 'node:stream';
import { Type, type TSchema } from '@sinclair/typebox';

/** The response schema of a route that answers with jsonArrayStream: an array of `item` in the docs, a stream to the handler's types. */
export function StreamedArray<T extends TSchema>(item: T) {
  return Type.Unsafe<Readable>(Type.Array(item));
}

export async function jsonArrayStream<T>(pages: AsyncIterator<readonly T[]>): Promise<Readable> {
  const first = await pages.next();
  async function* chunks(): AsyncGenerator<string> {
    let separator = '[';
    for (let page = first; !page.done; page = await pages.next()) {
      if (page.value.length === 0) continue;
      yield separator + JSON.stringify(page.value).slice(1, -1);
      separator = ',';
    }
    yield separator === '[' ? '[]' : ']';
  }
  return Readable.from(chunks(), { objectMode: false });
}
