/**
 * The process document (reference core §3.4): what process search returns per segment and what
 * the summary, events and preview routes show as `process`. One builder for all of them, so a
 * process reads the same wherever a client meets it. Inputs are plain records (a process row
 * joined with its sensor, group and parent rows, and a span of its segments), so any store can
 * produce them.
 */
import { Type, type Static } from '@sinclair/typebox';
import { processId, REFERENCE_SEGMENT, uniqueId, unknownParentId } from '../../domain/process-id.js';
import { documentTime } from '../../domain/wire-time.js';
import { COUNTED_TYPES } from '../../ingest/prepare.js';
import { ipv4ToInt, toSignedInt32 } from '../../query/values/ip.js';

export type CountedEventType = (typeof COUNTED_TYPES)[number];
export type EventCounts = Record<CountedEventType, number>;

/** A process as stored, with what its document needs from its sensor, group and parent. */
export interface ProcessRecord {
  /** The store's row id. */
  row: number;
  sensorId: number;
  pid: number;
  /** Sensor clock, epoch ms. */
  startMs: number;
  groupId: number;
  /** The group's name now ('' when the group is gone). */
  groupName: string;
  hostname: string;
  hostType: string;
  osType: string;
  path: string;
  processName: string;
  cmdline: string;
  username: string;
  uid: string;
  md5: string;
  sha256: string;
  /** -1 when the sensor did not name a parent. */
  parentPid: number;
  /** null when the parent is unknown (its id cannot be formed without its start). */
  parentStartMs: number | null;
  /** From the start event, else the parent's own row, else ''. */
  parentName: string;
  parentMd5: string;
  endMs: number | null;
  /** The sensor's first IPv4 address ('' when it reported none). */
  sensorIp: string;
}

/** One segment, or several merged (segment 0): what a document says about its events. */
export interface SegmentSpan {
  /** The segment the document is (for a merge: the newest). */
  segmentId: number;
  /** Every segment merged into this span, ascending. */
  segmentIds: number[];
  minLastUpdateMs: number;
  lastUpdateMs: number;
  minLastServerUpdateMs: number;
  lastServerUpdateMs: number;
  counts: EventCounts;
}

export interface SegmentRecord {
  row: number;
  segmentId: number;
  lastUpdateMs: number;
  lastServerUpdateMs: number;
  eventCount: number;
  counts: EventCounts;
}

/** The span of one segment. */
export function spanOf(segment: SegmentRecord): SegmentSpan {
  return mergeSpans([segment]);
}

/** The span of several segments of one process (segment 0 merges them all). */
export function mergeSpans(segments: readonly SegmentRecord[]): SegmentSpan {
  if (segments.length === 0) throw new Error('a span needs at least one segment');
  const counts = Object.fromEntries(COUNTED_TYPES.map((type) => [type, 0])) as EventCounts;
  for (const segment of segments) {
    for (const type of COUNTED_TYPES) counts[type] += segment.counts[type];
  }
  const sorted = [...segments].sort((a, b) => a.segmentId - b.segmentId);
  return {
    segmentId: sorted.at(-1)!.segmentId,
    segmentIds: sorted.map((s) => s.segmentId),
    minLastUpdateMs: Math.min(...sorted.map((s) => s.lastUpdateMs)),
    lastUpdateMs: Math.max(...sorted.map((s) => s.lastUpdateMs)),
    minLastServerUpdateMs: Math.min(...sorted.map((s) => s.lastServerUpdateMs)),
    lastServerUpdateMs: Math.max(...sorted.map((s) => s.lastServerUpdateMs)),
    counts,
  };
}

const Int = Type.Integer();
const Str = Type.String();

export const ProcessDocument = Type.Object({
  id: Type.String({ description: 'process GUID: sensor id, pid and start packed as 8-4-4-4-12 hex' }),
  unique_id: Type.String({ description: 'id and segment id (12 hex digits)' }),
  segment_id: Type.Integer({ description: 'server time the segment opened, epoch ms' }),
  parent_unique_id: Str,
  parent_id: Type.String({ description: '<sensor>-ffff-ffff-0000-000000000000 when the parent is unknown' }),
  parent_name: Type.String({ description: '"(unknown)" when the parent is unknown' }),
  parent_pid: Type.Integer({ description: '-1 when unknown' }),
  parent_md5: Str,
  process_pid: Int,
  process_name: Str,
  path: Str,
  cmdline: Str,
  process_md5: Str,
  process_sha256: Type.String({ description: '\'\' when the sensor did not report it' }),
  hostname: Type.String({ description: 'lowercase' }),
  sensor_id: Int,
  group: Type.String({ description: 'sensor group name, lowercase' }),
  host_type: Str,
  os_type: Str,
  username: Str,
  uid: Str,
  start: Type.String({ description: 'process start, sensor clock' }),
  last_update: Type.String({ description: 'latest event of the segment, sensor clock' }),
  last_server_update: Type.String({ description: 'when the server last wrote the segment' }),
  terminated: Type.Boolean(),
  comms_ip: Type.Integer({ description: 'IPv4 as a signed 32-bit integer (the sensor\'s address)' }),
  interface_ip: Type.Integer({ description: 'IPv4 as a signed 32-bit integer' }),
  filtering_known_dlls: Type.Boolean(),
  emet_config: Str,
  modload_count: Int,
  filemod_count: Int,
  regmod_count: Int,
  netconn_count: Int,
  childproc_count: Int,
  crossproc_count: Int,
  emet_count: Int,
  processblock_count: Int,
});
export type ProcessDocument = Static<typeof ProcessDocument>;

/** The extra fields of summary and events documents (reference core §3.4, last rows). */
const SpanFieldsObject = Type.Object({
  min_last_update: Str,
  max_last_update: Str,
  min_last_server_update: Str,
  max_last_server_update: Str,
  ref_segment_id: Type.Array(Type.Integer(), { description: 'the segments this document covers' }),
});
export const SpanFields = SpanFieldsObject.properties;
export type SpanFieldValues = Static<typeof SpanFieldsObject>;

/** The recorded value of an unknown parent's md5: 30 zeros (reference core §1.1). */
const UNKNOWN_PARENT_MD5 = '0'.repeat(30);
/** A known parent whose md5 the sensor did not give: all zeros, which cbapi reads as "not set". */
const UNSET_MD5 = '0'.repeat(32);

export function processDocument(process: ProcessRecord, span: SegmentSpan): ProcessDocument {
  const id = processId({ sensorId: process.sensorId, pid: process.pid, startMs: process.startMs });
  const ip = toSignedInt32(ipv4ToInt(process.sensorIp) ?? 0);
  return {
    id,
    unique_id: uniqueId(id, span.segmentId),
    segment_id: span.segmentId,
    ...parentFields(process),
    process_pid: process.pid,
    process_name: process.processName,
    path: process.path,
    cmdline: process.cmdline,
    process_md5: process.md5,
    process_sha256: process.sha256,
    hostname: process.hostname.toLowerCase(),
    sensor_id: process.sensorId,
    group: process.groupName.toLowerCase(),
    host_type: process.hostType,
    os_type: process.osType,
    username: process.username,
    uid: process.uid,
    start: documentTime(process.startMs),
    last_update: documentTime(span.lastUpdateMs),
    last_server_update: documentTime(span.lastServerUpdateMs),
    terminated: process.endMs !== null,
    comms_ip: ip,
    interface_ip: ip,
    filtering_known_dlls: false,
    emet_config: '',
    modload_count: span.counts.modload,
    filemod_count: span.counts.filemod,
    regmod_count: span.counts.regmod,
    netconn_count: span.counts.netconn,
    childproc_count: span.counts.childproc,
    crossproc_count: span.counts.crossproc,
    emet_count: 0,
    processblock_count: span.counts.processblock,
  };
}

/** The document with the span fields summary and events responses add. */
export function spannedDocument(process: ProcessRecord, span: SegmentSpan): ProcessDocument & SpanFieldValues {
  return {
    ...processDocument(process, span),
    min_last_update: documentTime(span.minLastUpdateMs),
    max_last_update: documentTime(span.lastUpdateMs),
    min_last_server_update: documentTime(span.minLastServerUpdateMs),
    max_last_server_update: documentTime(span.lastServerUpdateMs),
    ref_segment_id: span.segmentIds,
  };
}

type ParentFields = Pick<ProcessDocument, 'parent_unique_id' | 'parent_id' | 'parent_name' | 'parent_pid' | 'parent_md5'>;

function parentFields(process: ProcessRecord): ParentFields {
  if (process.parentStartMs === null) {
    const parentId = unknownParentId(process.sensorId);
    return {
      parent_unique_id: uniqueId(parentId, REFERENCE_SEGMENT),
      parent_id: parentId,
      parent_name: '(unknown)',
      parent_pid: -1,
      parent_md5: UNKNOWN_PARENT_MD5,
    };
  }
  const parentId = processId({ sensorId: process.sensorId, pid: process.parentPid, startMs: process.parentStartMs });
  return {
    parent_unique_id: uniqueId(parentId, REFERENCE_SEGMENT),
    parent_id: parentId,
    parent_name: process.parentName,
    parent_pid: process.parentPid,
    parent_md5: process.parentMd5 || UNSET_MD5,
  };
}
