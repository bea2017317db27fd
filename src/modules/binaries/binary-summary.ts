/**
 * The binary document of GET /api/v1/binary/{md5}/summary, built from what sensors reported
 * (reference core §5.3). Host-dependent fields (endpoints, groups, host count, filenames, last
 * seen) come only from the observations the caller may see.
 */
import type { DocumentTags } from '../../detect/document-tags.js';
import { wireTags } from '../../detect/document-tags.wire.js';
import { documentTime, documentTimeSeconds } from '../../domain/wire-time.js';
import { COMPATIBLE_CB_VERSION } from '../info/info.service.js';
import type { BinaryMetadata } from './binary-upload.schemas.js';
import type { BinaryObservation, BinaryRecord } from './binaries.store.js';
import type { BinarySummary } from './binaries.schemas.js';

/** Carbon Black capitalised os_type on binary documents (query reference: Windows / OSX / Linux). */
const OS_TYPE: Record<string, string> = { windows: 'Windows', osx: 'OSX', linux: 'Linux' };

/** The version of the server that indexed the document, as Carbon Black numbers it (6.2.0 → 620). */
const CB_VERSION = Number(COMPATIBLE_CB_VERSION.split('.').slice(0, 3).join(''));

const VERSION_FIELDS = [
  'original_filename', 'internal_name', 'company_name', 'product_name', 'product_version', 'file_version',
  'file_desc', 'legal_copyright', 'legal_trademark', 'private_build', 'special_build', 'comments',
] as const satisfies readonly (keyof BinaryMetadata & keyof BinarySummary)[];

/** What the sensor said, or "(Unknown)" when it said nothing about a signature. */
function digsigResult(metadata: BinaryMetadata): string {
  return metadata.digsig?.result ?? '(Unknown)';
}

export function binarySummary(
  record: BinaryRecord, observations: readonly BinaryObservation[], icon: Buffer, tags: DocumentTags | undefined,
): BinarySummary {
  const { metadata } = record;
  const known = observations.flatMap((o) => (o.sensor ? [{ sensorId: o.sensorId, ...o.sensor }] : []));
  const result = digsigResult(metadata);
  const summary: BinarySummary = {
    md5: record.md5.toUpperCase(),
    server_added_timestamp: documentTime(record.firstSeenMs),
    timestamp: documentTime(record.firstSeenMs),
    last_seen: documentTime(observations.reduce((latest, o) => Math.max(latest, o.lastSeenMs), record.firstSeenMs)),
    orig_mod_len: record.size,
    copied_mod_len: record.storedSize,
    observed_filename: unique(observations.map((o) => o.observedFilename)),
    is_executable_image: metadata.is_executable_image ?? false,
    is_64bit: metadata.is_64bit ?? false,
    digsig_result: result,
    signed: result,
    host_count: new Set(observations.map((o) => o.sensorId)).size,
    endpoint: unique(known.map((o) => `${o.hostname}|${o.sensorId}`)),
    group: unique(known.map((o) => o.groupName)),
    os_type: OS_TYPE[known[0]?.osType ?? ''] ?? '',
    cb_version: CB_VERSION,
    icon: icon.toString('base64'),
    ...wireTags(tags, 'binary'),
  };
  if (record.sha256) summary.sha256 = record.sha256;
  for (const field of VERSION_FIELDS) {
    const value = metadata[field];
    if (value !== undefined) summary[field] = value;
  }
  const digsig = metadata.digsig;
  if (digsig) {
    if (digsig.result_code !== undefined) summary.digsig_result_code = digsig.result_code;
    if (digsig.sign_time !== undefined) summary.digsig_sign_time = documentTimeSeconds(digsig.sign_time);
    if (digsig.publisher !== undefined) summary.digsig_publisher = digsig.publisher;
    if (digsig.issuer !== undefined) summary.digsig_issuer = digsig.issuer;
    if (digsig.subject !== undefined) summary.digsig_subject = digsig.subject;
    if (digsig.prog_name !== undefined) summary.digsig_prog_name = digsig.prog_name;
  }
  return summary;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
