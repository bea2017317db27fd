/**
 * Third stage: values take the form search and the event formats expect, once, at ingest:
 * paths, hashes and domains lowercase (Carbon Black indexes them so), registry control sets
 * folded into currentcontrolset (as Carbon Black does at index time), command lines and user
 * names as the sensor sent them. Events are freshly parsed and owned by the pipeline, so they
 * are changed in place: at ingest rates, copying each one costs more than the rest of this stage.
 */
import { normalizeKeyword } from '../query/values/keyword.js';
import type { SensorEvent } from './event.schemas.js';

const CONTROL_SET = /\\controlset00\d\\/;

const lower = (value: string | undefined) => value?.toLowerCase();

export function normalizeEvent(event: SensorEvent): SensorEvent {
  switch (event.type) {
    case 'process_start':
      event.path = event.path.toLowerCase();
      event.md5 = lower(event.md5);
      event.sha256 = lower(event.sha256);
      event.parent_path = lower(event.parent_path);
      event.parent_md5 = lower(event.parent_md5);
      break;
    case 'filemod':
    case 'childproc':
      event.path = event.path.toLowerCase();
      event.md5 = lower(event.md5);
      event.sha256 = lower(event.sha256);
      break;
    case 'regmod':
      event.path = event.path.toLowerCase().replace(CONTROL_SET, '\\currentcontrolset\\');
      break;
    case 'netconn':
      event.domain = event.domain?.toLowerCase().replace(/\.$/, '');
      // Stored as the query side compares keywords (a fingerprint is any text, not only hex).
      event.ja3 = event.ja3 === undefined ? undefined : normalizeKeyword(event.ja3);
      event.ja3s = event.ja3s === undefined ? undefined : normalizeKeyword(event.ja3s);
      break;
    case 'modload':
      event.path = event.path.toLowerCase();
      event.md5 = event.md5.toLowerCase();
      event.sha256 = lower(event.sha256);
      break;
    case 'crossproc':
      event.target_path = event.target_path.toLowerCase();
      event.target_md5 = lower(event.target_md5);
      event.target_sha256 = lower(event.target_sha256);
      break;
    case 'processblock':
      event.blocked_md5 = event.blocked_md5.toLowerCase();
      event.blocked_path = event.blocked_path.toLowerCase();
      break;
    case 'process_end':
      break;
  }
  return event;
}

/** The last component of a Windows or Unix path. */
export function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('\\'), path.lastIndexOf('/')) + 1);
}
