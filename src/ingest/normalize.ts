/**
 * Third stage: values take the form search and the event formats expect, once, at ingest:
 * paths, hashes and domains lowercase (Carbon Black indexes them so), registry control sets
 * folded into currentcontrolset (as Carbon Black does at index time), command lines and user
 * names as the sensor sent them.
 */
import type { SensorEvent } from './event.schemas.js';

const CONTROL_SET = /\\controlset00\d\\/;

export function normalizeEvent(event: SensorEvent): SensorEvent {
  switch (event.type) {
    case 'process_start':
      return {
        ...event,
        path: event.path.toLowerCase(),
        md5: event.md5?.toLowerCase(),
        sha256: event.sha256?.toLowerCase(),
        parent_path: event.parent_path?.toLowerCase(),
        parent_md5: event.parent_md5?.toLowerCase(),
      };
    case 'filemod':
      return { ...event, path: event.path.toLowerCase(), md5: event.md5?.toLowerCase(), sha256: event.sha256?.toLowerCase() };
    case 'regmod':
      return { ...event, path: event.path.toLowerCase().replace(CONTROL_SET, '\\currentcontrolset\\') };
    case 'netconn':
      return { ...event, domain: event.domain?.toLowerCase().replace(/\.$/, ''), ja3: event.ja3?.toLowerCase(), ja3s: event.ja3s?.toLowerCase() };
    case 'modload':
      return { ...event, path: event.path.toLowerCase(), md5: event.md5.toLowerCase(), sha256: event.sha256?.toLowerCase() };
    case 'childproc':
      return { ...event, path: event.path.toLowerCase(), md5: event.md5?.toLowerCase(), sha256: event.sha256?.toLowerCase() };
    case 'crossproc':
      return {
        ...event,
        target_path: event.target_path.toLowerCase(),
        target_md5: event.target_md5?.toLowerCase(),
        target_sha256: event.target_sha256?.toLowerCase(),
      };
    case 'processblock':
      return { ...event, blocked_md5: event.blocked_md5.toLowerCase(), blocked_path: event.blocked_path.toLowerCase() };
    case 'process_end':
      return event;
  }
}

/** The last component of a Windows or Unix path. */
export function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('\\'), path.lastIndexOf('/')) + 1);
}
