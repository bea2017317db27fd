/**
 * Reads a sensor installer package (src/modules/installers/installer-format.ts): a zip (Windows,
 * macOS) or a gzipped tar (Linux), told apart by their first bytes. Vigil's packages are a few
 * kilobytes, so everything is read in memory.
 */
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { gunzipSync } from 'node:zlib';
import { Value } from '@sinclair/typebox/value';
import { unzipSync } from 'fflate';
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

/** The signature every zip file starts with (a local file header). */
const ZIP_LOCAL_HEADER = 0x04034b50;

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

function zipFiles(zip: Buffer): Map<string, Buffer> {
  return new Map(Object.entries(unzipSync(zip)).map(([name, content]) => [name, Buffer.from(content)]));
}
