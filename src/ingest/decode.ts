/**
 * First stage: the raw body of an upload becomes a batch, or the whole batch is refused with a
 * named reason. Decompression is bounded, so a small gzip bomb cannot exhaust memory.
 */
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { EventBatch, MAX_EVENTS_PER_BATCH } from './event.schemas.js';
import { IngestRejection } from './rejection.js';

const gunzipAsync = promisify(gunzip);
/**
 * Output is produced this much per round trip to the thread pool. The default (16 KiB) makes a
 * 2,000-event batch (~500 KB of JSON) take some 30 round trips, which nearly doubled the CPU of
 * decompression; with 1 MiB a typical batch takes one.
 */
const GUNZIP_CHUNK_BYTES = 1 << 20;
const batchShape = TypeCompiler.Compile(EventBatch);

export async function decodeBatch(raw: Buffer, contentEncoding: string | undefined, maxDecodedBytes: number): Promise<EventBatch> {
  return parseBatch(await decompress(raw, contentEncoding?.trim().toLowerCase(), maxDecodedBytes));
}

/** A decompressed body (decompress()) as a batch, or the whole batch refused with a named reason. */
export function parseBatch(text: string): EventBatch {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new IngestRejection('malformed_json', `Body is not valid JSON: ${(error as Error).message}`);
  }
  const events = (parsed as { events?: unknown } | null)?.events;
  if (Array.isArray(events) && events.length > MAX_EVENTS_PER_BATCH) {
    throw new IngestRejection('batch_too_large', `A batch holds at most ${MAX_EVENTS_PER_BATCH} events, not ${events.length}`);
  }
  if (!batchShape.Check(parsed)) {
    const first = batchShape.Errors(parsed).First();
    throw new IngestRejection('invalid_batch', `${first?.path || '/'} ${first?.message ?? 'is not a batch'}`);
  }
  return parsed;
}

/** The body as text, gunzipped when its Content-Encoding says gzip, refused whole when it cannot be read. */
export async function decompress(raw: Buffer, encoding: string | undefined, maxDecodedBytes: number): Promise<string> {
  return (await decompressBytes(raw, encoding, maxDecodedBytes)).toString('utf8');
}

/** The body's bytes, as decompress() reads them, for callers that decode it piece by piece. */
export async function decompressBytes(raw: Buffer, encoding: string | undefined, maxDecodedBytes: number): Promise<Buffer> {
  if (encoding === undefined || encoding === '' || encoding === 'identity') return raw;
  if (encoding !== 'gzip') throw new IngestRejection('bad_encoding', `Unsupported Content-Encoding ${encoding}`);
  try {
    return await gunzipAsync(raw, { maxOutputLength: maxDecodedBytes, chunkSize: GUNZIP_CHUNK_BYTES });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new IngestRejection('batch_too_large', `The body decompresses to more than ${maxDecodedBytes} bytes`);
    }
    throw new IngestRejection('bad_encoding', `Body is not valid gzip: ${(error as Error).message}`);
  }
}
