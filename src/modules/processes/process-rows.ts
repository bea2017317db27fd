/**
 * Columns of the process and segment tables (src/db/migrations/sqlite.ts) as the stores read them,
 * and the records (process-document.ts) they become: process detail and process search read the
 * same columns and map them here, so a process reads the same wherever a client meets it.
 */
import { COUNTED_TYPES } from '../../ingest/prepare.js';
import type { EventCounts, ProcessRecord, SegmentRecord } from './process-document.js';

/** What every read of a `processes` row carries. */
export interface ProcessColumns {
  sensor_id: number;
  pid: number;
  start_ms: number;
  hostname: string;
  host_type: string;
  os_type: string;
  path: string;
  process_name: string;
  cmdline: string;
  username: string;
  uid: string;
  md5: string;
  sha256: string;
  parent_pid: number;
  parent_start_ms: number | null;
  parent_name: string;
  parent_md5: string;
  end_ms: number | null;
}

/** A segment's per-type event counts (`filemod_count` … `processblock_count`). */
export type SegmentCounts = Record<`${(typeof COUNTED_TYPES)[number]}_count`, number>;

/** A process row with what its document needs from its group, its sensor and its parent's row. */
export interface ProcessContextColumns extends ProcessColumns {
  process_row: number;
  group_id: number;
  group_name: string | null;
  parent_row_name: string | null;
  parent_row_md5: string | null;
  /** The sensor's addresses as "|10.1.2.3|…|" (sensors.ip_addresses). */
  ip_addresses: string | null;
}

/**
 * The SELECT list of ProcessContextColumns over `p` (the process) joined with PROCESS_CONTEXT_JOINS.
 */
export const PROCESS_CONTEXT_COLUMNS = `p.id AS process_row, p.sensor_id, p.pid, p.start_ms, p.group_id, g.name AS group_name,
  p.hostname, p.host_type, p.os_type, p.path, p.process_name, p.cmdline, p.username, p.uid, p.md5, p.sha256, p.parent_pid,
  p.parent_start_ms, p.parent_name, p.parent_md5, pp.process_name AS parent_row_name, pp.md5 AS parent_row_md5, p.end_ms,
  se.ip_addresses`;

export const PROCESS_CONTEXT_JOINS = `LEFT JOIN sensor_groups g ON g.id = p.group_id
  LEFT JOIN sensors se ON se.id = p.sensor_id
  LEFT JOIN processes pp ON pp.sensor_id = p.sensor_id AND pp.pid = p.parent_pid AND pp.start_ms = p.parent_start_ms`;

export interface SegmentColumns extends SegmentCounts {
  segment_id: number;
  last_update_ms: number;
  last_server_update_ms: number;
  event_count: number;
}

export function processRecord(row: ProcessContextColumns): ProcessRecord {
  return {
    row: row.process_row,
    sensorId: row.sensor_id,
    pid: row.pid,
    startMs: row.start_ms,
    groupId: row.group_id,
    groupName: row.group_name ?? '',
    hostname: row.hostname,
    hostType: row.host_type,
    osType: row.os_type,
    path: row.path,
    processName: row.process_name,
    cmdline: row.cmdline,
    username: row.username,
    uid: row.uid,
    md5: row.md5,
    sha256: row.sha256,
    parentPid: row.parent_pid,
    parentStartMs: row.parent_start_ms,
    parentName: row.parent_name || (row.parent_row_name ?? ''),
    parentMd5: row.parent_md5 || (row.parent_row_md5 ?? ''),
    endMs: row.end_ms,
    sensorIp: firstIpv4(row.ip_addresses ?? ''),
  };
}

/** The first IPv4 address of a sensor's "|10.1.2.3|fe80::1|" list. */
function firstIpv4(addresses: string): string {
  return addresses.split('|').find((address) => /^\d{1,3}(\.\d{1,3}){3}$/.test(address)) ?? '';
}

/** `segmentRow`: the segment's row id (segments.id). */
export function segmentRecord(row: SegmentColumns, segmentRow: number): SegmentRecord {
  const counts = Object.fromEntries(COUNTED_TYPES.map((type) => [type, row[`${type}_count`]])) as EventCounts;
  return {
    row: segmentRow,
    segmentId: row.segment_id,
    lastUpdateMs: row.last_update_ms,
    lastServerUpdateMs: row.last_server_update_ms,
    eventCount: row.event_count,
    counts,
  };
}
