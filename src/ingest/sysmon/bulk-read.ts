/**
 * A `_bulk` body read as far as it can be without the server's state: its digest taken (a
 * shipper's retry of the same bytes is stored once), decompressed and every item decoded up to
 * settling (sysmon-decoder.ts). Pure, so it runs on a reader thread (bulk-reader.worker.ts) or,
 * with none configured, on the request's own.
 */
import { webcrypto } from 'node:crypto';
import { decompressBytes } from '../decode.js';
import { bulkItems, type BulkItemHead } from './bulk-lines.js';
import { decodeSysmon, shortName, type Unsettled } from './sysmon-decoder.js';
import { flatten } from './sysmon-shapes.js';

/**
 * An item with its document decoded, or why it has no document to decode. `more`: it stands for
 * that many items after it too, alike but for their lines (runLine()); only a body whose events
 * were handed over is answered in runs (bulk-hand-over.ts), its items then carrying no events.
 */
export type ReadItem = { head: BulkItemHead; more?: number } & ({ refused: string } | { decoded: Unsettled });

/** The line of a run's `k`-th item after its first: each item of a run is an action line and its document line. */
export const runLine = (first: number, k: number): number => first + 2 * k;

export interface ReadBulk {
  digest: string;
  items: ReadItem[];
}

export async function readBulk(raw: Buffer, contentEncoding: string | undefined, maxDecodedBytes: number, nowMs: number): Promise<ReadBulk> {
  // The bytes as sent (a retry sends the same ones) are hashed, not the body decompressed, which is
  // some 13 times longer; WebCrypto hashes on the thread pool, beside the decompression.
  const [body, hash] = await Promise.all([
    decompressBytes(raw, contentEncoding?.trim().toLowerCase(), maxDecodedBytes),
    webcrypto.subtle.digest('SHA-1', raw),
  ]);
  const digest = `bulk:${Buffer.from(hash).toString('hex')}`;
  const items: ReadItem[] = [];
  // A host's batch keeps the first of each file it names (SysmonBatch): the others' metadata, half
  // of what an image load reads to, need not be copied to the request thread.
  const binariesRead = new Set<string>();
  for (const item of bulkItems(body)) {
    if ('refused' in item) {
      items.push(item);
      continue;
    }
    const decoded = readEvent(item.document, nowMs);
    if ('events' in decoded && decoded.binary !== undefined) {
      const key = `${batchHostKey(shortName(decoded.hostname))}\n${decoded.binary.md5}`;
      if (binariesRead.has(key)) decoded.binary = undefined;
      else binariesRead.add(key);
    }
    items.push({ head: item.head, decoded });
  }
  return { digest, items };
}

/** Which of a body's hosts share a batch entry (and a sensor): by name without domain, in any case. */
export const batchHostKey = (name: string): string => name.toLowerCase();

/** One document, in any shape flatten() reads, decoded as far as decodeSysmon() goes. */
export function readEvent(document: Record<string, unknown>, nowMs: number): Unsettled {
  const flat = flatten(document);
  return 'malformed' in flat ? { reason: flat.reason, detail: flat.malformed } : decodeSysmon(flat.record, nowMs);
}
