/**
 * The files behind simulated images and modules. Each is a few KB of deterministic pseudo-random
 * bytes under a real header for its OS (PE "MZ", ELF, Mach-O), so hashes are those of content the
 * server can check: the md5 and sha256 that events reference are computed from these bytes.
 */
import { createHash } from 'node:crypto';
import type { BinaryMetadata } from '../modules/binaries/binary-upload.schemas.js';
import { vendorOf, type Os, type Vendor } from './catalog.js';
import { programIcon } from './icons.js';
import { Random } from './random.js';

export interface Binary {
  readonly path: string;
  readonly md5: string;
  readonly sha256: string;
  readonly content: Buffer;
  readonly metadata: BinaryMetadata;
}

export interface BinarySpec {
  /** Same key, same bytes: a shared image keys by OS and path, an endpoint's own by host and path. */
  readonly key: string;
  readonly path: string;
  readonly os: Os;
  readonly desc?: string | undefined;
}

const SIGNED_FROM = Date.UTC(2022, 0, 1);
const SIGNED_SPAN_MS = 700 * 86_400_000;
/** WinVerifyTrust's HRESULTs as Carbon Black reported them (decimal): success, and TRUST_E_NOSIGNATURE. */
const TRUST_OK = '0';
const TRUST_E_NOSIGNATURE = String(0x800b0100);

type Signature = NonNullable<BinaryMetadata['digsig']>;

/** One fleet's binaries: built on first use, then shared by every endpoint of that seed. */
export class BinaryCatalog {
  private readonly built = new Map<string, Binary>();

  constructor(private readonly seed: string) {}

  get(spec: BinarySpec): Binary {
    let binary = this.built.get(spec.key);
    if (!binary) {
      binary = build(new Random(`${this.seed}/binary/${spec.key}`), spec);
      this.built.set(spec.key, binary);
    }
    return binary;
  }
}

function build(random: Random, spec: BinarySpec): Binary {
  const executable = isExecutable(spec.path, spec.os);
  const content = random.fill(Buffer.alloc(random.between(4, 24) * 512));
  writeHeader(content, spec.os, executable);
  const md5 = createHash('md5').update(content).digest('hex');
  const sha256 = createHash('sha256').update(content).digest('hex');
  const vendor = vendorOf(spec.path, spec.os);
  const name = basename(spec.path);
  const metadata: BinaryMetadata = {
    md5,
    sha256,
    size: content.length,
    observed_filename: spec.path,
    original_filename: name,
    is_executable_image: executable,
    is_64bit: true,
    digsig: signature(vendor, spec.os, random),
  };
  if (spec.os === 'windows' && executable) metadata.icon = programIcon(random.fork('icon')).toString('base64');
  if (spec.os === 'windows' && vendor.company !== undefined) {
    Object.assign(metadata, {
      company_name: vendor.company,
      product_name: vendor.product,
      file_version: vendor.version,
      product_version: vendor.version,
      file_desc: spec.desc ?? name,
      internal_name: name.replace(/\.[^.]+$/, ''),
      legal_copyright: `© ${vendor.company}. All rights reserved.`,
    });
  } else if (vendor.product !== undefined) {
    Object.assign(metadata, { company_name: vendor.company, product_name: vendor.product, product_version: vendor.version });
  }
  return { path: spec.path, md5, sha256, content, metadata };
}

function signature(vendor: Vendor, os: Os, random: Random): Signature {
  const { publisher } = vendor;
  if (publisher === undefined) return os === 'windows' ? { result: 'Unsigned', result_code: TRUST_E_NOSIGNATURE } : { result: 'Unsigned' };
  return {
    result: 'Signed',
    ...(os === 'windows' ? { result_code: TRUST_OK } : {}),
    publisher,
    issuer: issuerOf(publisher),
    subject: publisher,
    ...(vendor.product !== undefined ? { prog_name: vendor.product } : {}),
    sign_time: SIGNED_FROM + random.int(SIGNED_SPAN_MS),
  };
}

/** The certificate authority behind each publisher's code-signing certificate. */
function issuerOf(publisher: string): string {
  if (publisher === 'Microsoft Windows') return 'Microsoft Windows Production PCA 2011';
  if (publisher === 'Microsoft Corporation') return 'Microsoft Code Signing PCA 2011';
  if (publisher === 'Software Signing') return 'Apple Code Signing Certification Authority';
  if (publisher.startsWith('Developer ID Application:')) return 'Developer ID Certification Authority';
  return 'DigiCert Trusted G4 Code Signing RSA4096 SHA384 2021 CA1';
}

function isExecutable(path: string, os: Os): boolean {
  if (os === 'windows') return path.endsWith('.exe');
  return !/\.(so(\.\d+)*|dylib)$/.test(path) && !/\.framework\/Versions\/[^/]+\/[^/]+$/.test(path);
}

function writeHeader(content: Buffer, os: Os, executable: boolean): void {
  if (os === 'windows') {
    content.write('MZ', 0, 'latin1');
    content.writeUInt32LE(0x80, 0x3c);
    content.write('This program cannot be run in DOS mode.\r\r\n$', 0x4e, 'latin1');
    content.write('PE\0\0', 0x80, 'latin1');
    content.writeUInt16LE(0x8664, 0x84);
    content.writeUInt16LE(executable ? 0x0022 : 0x2022, 0x96);
  } else if (os === 'linux') {
    Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]).copy(content, 0);
    content.writeUInt16LE(3, 16); // ET_DYN: position-independent executables and shared objects alike
    content.writeUInt16LE(0x3e, 18);
  } else {
    content.writeUInt32LE(0xfeedfacf, 0);
    content.writeUInt32LE(0x0100000c, 4);
    content.writeUInt32LE(executable ? 2 : 6, 12);
  }
}

function basename(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('\\'), path.lastIndexOf('/')) + 1);
}
