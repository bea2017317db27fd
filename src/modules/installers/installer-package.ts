/**
 * Builds an installer package in memory (a few kilobytes): a zip through yazl, or a tar through
 * tar-stream gzipped by node:zlib. Entries are dated `mtime` so that the same group, server and
 * certificate give the same bytes within one second.
 * Tar entries are readable by their owner only: the settings hold the group's install code.
 */
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { pack } from 'tar-stream';
import { ZipFile } from 'yazl';

export interface PackageEntry {
  name: string;
  content: string;
}

const gzipAsync = promisify(gzip);

export async function zipPackage(entries: readonly PackageEntry[], mtime: Date): Promise<Buffer> {
  const zip = new ZipFile();
  for (const entry of entries) zip.addBuffer(Buffer.from(entry.content, 'utf8'), entry.name, { mtime });
  zip.end();
  return buffer(zip.outputStream as Readable);
}

export async function tarGzPackage(entries: readonly PackageEntry[], mtime: Date): Promise<Buffer> {
  const tar = pack();
  for (const entry of entries) tar.entry({ name: entry.name, mtime, mode: 0o600 }, entry.content);
  tar.finalize();
  return gzipAsync(await buffer(tar));
}
