/**
 * What Sysmon tells of the files it saw run or load (events 1, 6 and 7): the binary's metadata,
 * without content, as a sensor's binary upload carries it (so the binaries module serves it:
 * binary search, summaries, "seen on" hosts). Size is unknown to Sysmon and reported as 0.
 */
import { hashes, text, type SysmonRecord } from './sysmon-fields.js';

export interface SysmonBinary {
  md5: string;
  sha256?: string;
  size: number;
  observed_filename: string;
  original_filename?: string;
  company_name?: string;
  product_name?: string;
  file_version?: string;
  file_desc?: string;
  is_executable_image?: boolean;
  digsig?: { result: 'Signed' | 'Unsigned' | 'Expired' | 'Invalid Signature'; publisher?: string };
}

/** Sysmon's SignatureStatus, as Carbon Black's digsig_result. */
const SIGNATURE_RESULTS = new Map<string, 'Signed' | 'Expired' | 'Invalid Signature'>([
  ['valid', 'Signed'], ['expired', 'Expired'],
]);

export function binaryOf(record: SysmonRecord, id: number): SysmonBinary | undefined {
  const path = text(record, id === 1 ? 'Image' : 'ImageLoaded');
  const { md5, sha256 } = hashes(text(record, 'Hashes'));
  if (path === undefined || md5 === undefined) return undefined;
  const signed = text(record, 'Signed')?.toLowerCase();
  const status = text(record, 'SignatureStatus')?.toLowerCase();
  const publisher = text(record, 'Signature');
  const binary: SysmonBinary = {
    md5, size: 0, observed_filename: path, is_executable_image: id === 1 || path.toLowerCase().endsWith('.exe'),
  };
  if (sha256 !== undefined) binary.sha256 = sha256;
  const fields = [['original_filename', 'OriginalFileName'], ['company_name', 'Company'], ['product_name', 'Product'],
    ['file_version', 'FileVersion'], ['file_desc', 'Description']] as const;
  for (const [name, field] of fields) {
    const value = text(record, field);
    if (value !== undefined) binary[name] = value.slice(0, 1024);
  }
  if (signed === 'false') binary.digsig = { result: 'Unsigned' };
  else if (signed === 'true') {
    binary.digsig = { result: SIGNATURE_RESULTS.get(status ?? '') ?? 'Invalid Signature' };
    if (publisher !== undefined) binary.digsig.publisher = publisher.slice(0, 256);
  }
  return binary;
}
