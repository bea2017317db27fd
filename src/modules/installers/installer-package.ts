/**
 * Builds an installer package in memory (a few kilobytes): a zip through yazl, or a tar through
 * tar-stream gzipped by node:zlib. Entries are dated `mtime` so that the same group, server and
 * certificate give the same bytes within one second.
 * Entries are readable by their owner only when unpacked: the settings hold the group's install code.
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

const OWNER_ONLY = 0o600;
/** A zip's mode carries the file type too: a regular file. */
const OWNER_ONLY_FILE = 0o100000 | OWNER_ONLY;

export async function zipPackage(entries: readonly PackageEntry[], mtime: Date): Promise<Buffer> {
  const zip = new ZipFile();
  for (const entry of entries) zip.addBuffer(Buffer.from(entry.content, 'utf8'), entry.name, { mtime, mode: OWNER_ONLY_FILE });
  zip.end();
  return buffer(zip.outputStream as Readable);
}

export async function tarGzPackage(entries: readonly PackageEntry[], mtime: Date): Promise<Buffer> {
  const tar = pack();
  for (const entry of entries) tar.entry({ name: entry.name, mtime, mode: OWNER_ONLY }, entry.content);
  tar.finalize();
  return gzipAsync(await buffer(tar));
}
