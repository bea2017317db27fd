/**
 * The download of GET /api/v1/binary/{md5}: a zip (deflate) streamed as it is built, holding
 * `filedata`, the content, and `metadata`, the CRLF text Carbon Black kept beside it (reference
 * core §5.4: `Timestamp` and `OrigFilename`, names padded to 31 columns). cbapi reads `filedata`.
 */
import type { Readable } from 'node:stream';
import { ZipFile } from 'yazl';

export interface ArchiveMetadata {
  /** When the server first received the binary. */
  timestampMs: number;
  /** The path the binary was first observed at, as the sensor wrote it. */
  origFilename: string;
}

/** `Timestamp : 02/01/2017 04:05:44` is month/day/year, UTC. */
function metadataText({ timestampMs, origFilename }: ArchiveMetadata): string {
  const t = new Date(timestampMs);
  const two = (n: number) => String(n).padStart(2, '0');
  const timestamp = `${two(t.getUTCMonth() + 1)}/${two(t.getUTCDate())}/${t.getUTCFullYear()} ` +
    `${two(t.getUTCHours())}:${two(t.getUTCMinutes())}:${two(t.getUTCSeconds())}`;
  return [['Timestamp', timestamp], ['OrigFilename', origFilename]]
    .map(([name, value]) => `${name!.padEnd(31)}: ${value}\r\n`)
    .join('');
}

export function binaryArchive(content: { stream: Readable; size: number }, metadata: ArchiveMetadata): Readable {
  const zip = new ZipFile();
  const output = zip.outputStream as Readable;
  const mtime = new Date(metadata.timestampMs);
  // A failed read ends the response early (the client sees a truncated zip, never a crash), and a
  // client that goes away stops the read and closes the file.
  const abort = (error: Error) => output.destroy(error);
  zip.on('error', abort);
  content.stream.on('error', abort);
  output.on('close', () => content.stream.destroy());
  zip.addReadStreamLazy('filedata', { mtime, size: content.size }, (ready) => ready(null, content.stream));
  zip.addBuffer(Buffer.from(metadataText(metadata), 'utf8'), 'metadata', { mtime });
  zip.end();
  return output;
}
