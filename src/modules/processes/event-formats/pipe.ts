/**
 * The pipe-delimited records (reference core §4.5). Parsers split on `|` and read by index, so
 * each record always has the field count of its version; later versions add fields at the end.
 */
import type { EventOf } from '../../../ingest/event.schemas.js';
import { bool, CROSSPROC_KINDS, FILEMOD_CODES, ipAsInteger, pipeTime, pipeTimeMicros, referencedProcess, REGMOD_CODES } from './wire.js';

/** `type|time|path|md5|file type|tamper`, and `|sha256` where the version has it. */
export function filemodRecord(event: EventOf<'filemod'>, withSha256: boolean): string {
  const fields = [
    FILEMOD_CODES[event.action], pipeTimeMicros(event.ts), event.path, event.md5 ?? '', event.file_type ?? '', bool(event.tamper),
  ];
  if (withSha256) fields.push(event.sha256 ?? '');
  return fields.join('|');
}

/** `type|time|path|tamper`. */
export function regmodRecord(event: EventOf<'regmod'>): string {
  return [REGMOD_CODES[event.action], pipeTime(event.ts), event.path, bool(event.tamper)].join('|');
}

/** `time|md5|path`, and `|sha256` where the version has it. */
export function modloadRecord(event: EventOf<'modload'>, withSha256: boolean): string {
  const fields = [pipeTime(event.ts), event.md5, event.path];
  if (withSha256) fields.push(event.sha256 ?? '');
  return fields.join('|');
}

/** `time|remote ip (signed int)|remote port|protocol|domain|outbound`. */
export function netconnRecord(event: EventOf<'netconn'>): string {
  return [
    pipeTime(event.ts), ipAsInteger(event.remote_ip), event.remote_port, event.proto, event.domain ?? '', bool(event.direction === 'outbound'),
  ].join('|');
}

/** `time|child unique_id|md5|path|pid|started|tamper` (true: the child started, false: it ended). */
export function childprocRecord(event: EventOf<'childproc'>, sensorId: number): string {
  return [
    pipeTime(event.ts), referencedProcess(sensorId, event.child_pid, event.child_start), event.md5 ?? '', event.path,
    event.child_pid, bool(event.action === 'start'), bool(event.tamper),
  ].join('|');
}

/**
 * `type|time|other unique_id|other md5|other path|sub-type|access|tamper|is_target`, and
 * `|sha256` where the version has it. With is_target, "other" is the process that acted.
 */
export function crossprocRecord(event: EventOf<'crossproc'>, sensorId: number, withSha256: boolean): string {
  const [type, subType] = CROSSPROC_KINDS[event.action];
  const fields = [
    type, pipeTime(event.ts), referencedProcess(sensorId, event.target_pid, event.target_start), event.target_md5 ?? '',
    event.target_path, subType, event.access, bool(event.tamper), bool(event.is_target),
  ];
  if (withSha256) fields.push(event.target_sha256 ?? '');
  return fields.join('|');
}
