/** A binary found by search as its summary document, built from the sightings the caller may see, without the icon. */
import type { DocumentTags } from '../../detect/document-tags.js';
import type { BinaryMetadata } from './binary-upload.schemas.js';
import { binarySummary } from './binary-summary.js';
import type { BinaryRow } from './binary-search.plan.js';
import type { BinaryDocument } from './binaries.schemas.js';

const NO_ICON = Buffer.alloc(0);

export function binaryDocument(row: BinaryRow, tags: DocumentTags | undefined): BinaryDocument {
  const record = {
    md5: row.md5, sha256: row.sha256, size: row.size, storedSize: row.stored_size,
    metadata: JSON.parse(row.metadata) as BinaryMetadata, firstSeenMs: row.first_seen_ms, lastSeenMs: row.last_seen_ms,
  };
  const observations = row.observations.map((o) => ({
    sensorId: o.sensor_id,
    observedFilename: o.observed_filename,
    lastSeenMs: o.last_seen_ms,
    sensor: o.computer_name === null
      ? undefined
      : { hostname: o.computer_name, osType: o.os_type!, groupId: o.group_id!, groupName: o.group_name ?? '' },
  }));
  const document: Partial<ReturnType<typeof binarySummary>> = binarySummary(record, observations, NO_ICON, tags);
  delete document.icon;
  return document as BinaryDocument;
}
