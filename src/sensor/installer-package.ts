/**
 * Reads a sensor installer package (src/modules/installers/installer-format.ts): a zip (Windows,
 * macOS) or a gzipped tar (Linux), told apart by their first bytes. The zip reader takes what
 * yazl and the usual zip tools write (stored or deflated entries, sizes in the central directory)
 * and no more; Vigil's packages are a few kilobytes, so everything is read in memory.
 */
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { gunzipSync, inflateRawSync } from 'node:zlib';
import { Value } from '@sinclair/typebox/value';
import { extract } from 'tar-stream';
import { CERTIFICATE_FILE, SETTINGS_FILE, SensorSettings } from '../modules/installers/installer-format.js';

export interface EnrolmentSettings {
  settings: SensorSettings;
  /** PEM of the certificate to trust for settings.server_url, when the package has one. */
  ca: string | undefined;
}

export class InstallerPackageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InstallerPackageError';
  }
}

export async function readInstallerPackage(bytes: Buffer): Promise<EnrolmentSettings> {
  const files = await filesOf(bytes).catch((error: unknown) => {
    // Reads past the end of a truncated file, and zlib's complaints, all mean a damaged package.
    if (error instanceof InstallerPackageError) throw error;
    throw new InstallerPackageError(`a damaged installer package (${(error as Error).message})`);
  });
  const text = files.get(SETTINGS_FILE);
  if (text === undefined) throw new InstallerPackageError(`the package holds no ${SETTINGS_FILE}`);
  let settings: unknown;
  try {
    settings = JSON.parse(text.toString('utf8'));
  } catch {
    throw new InstallerPackageError(`${SETTINGS_FILE} is not JSON`);
  }
  if (!Value.Check(SensorSettings, settings)) {
    const problem = [...Value.Errors(SensorSettings, settings)][0];
    throw new InstallerPackageError(`${SETTINGS_FILE}: ${problem?.path || '(root)'} ${problem?.message ?? 'is not valid'}`);
  }
  if (settings.ca_certificate_file === null) return { settings, ca: undefined };
  const ca = files.get(CERTIFICATE_FILE);
  if (ca === undefined) throw new InstallerPackageError(`${SETTINGS_FILE} names ${CERTIFICATE_FILE}, which the package lacks`);
  return { settings, ca: ca.toString('utf8') };
}

async function filesOf(bytes: Buffer): Promise<Map<string, Buffer>> {
  if (bytes.readUInt32LE(0) === ZIP_LOCAL_HEADER) return zipFiles(bytes);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return tarFiles(gunzipSync(bytes));
  throw new InstallerPackageError('not an installer package: neither a zip nor a gzipped tar');
}

async function tarFiles(tar: Buffer): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const entries = extract();
  Readable.from([tar]).pipe(entries);
  for await (const entry of entries) {
    const content = await buffer(entry);
    if (entry.header.type === 'file') files.set(entry.header.name, content);
  }
  return files;
}

const ZIP_LOCAL_HEADER = 0x04034b50;
const ZIP_CENTRAL_HEADER = 0x02014b50;
const ZIP_END_OF_DIRECTORY = 0x06054b50;

function zipFiles(zip: Buffer): Map<string, Buffer> {
  // The end-of-directory record is the last 22 bytes, unless a comment (at most 64 KiB) follows it.
  let end = -1;
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at--) {
    if (zip.readUInt32LE(at) === ZIP_END_OF_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end < 0) throw new InstallerPackageError('a damaged zip: no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  const files = new Map<string, Buffer>();
  let at = zip.readUInt32LE(end + 16);
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== ZIP_CENTRAL_HEADER) throw new InstallerPackageError('a damaged zip: bad central directory');
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const dataStart = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(dataStart, dataStart + compressedSize);
    if (method === 0) files.set(name, data);
    else if (method === 8) files.set(name, inflateRawSync(data));
    else throw new InstallerPackageError(`${name}: zip compression method ${method} is not supported`);
  }
  return files;
}
