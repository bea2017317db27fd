/**
 * Vigil's rows as the records cb-event-forwarder writes, field for field (its
 * protobuf_json_structs.go for raw sensor events, json_message_processor.go for the JSON bus
 * messages: `event_timestamp` becomes `timestamp`, `hostname` is copied to `computer_name`, MD5s
 * are upper case, one record per document of `docs`). Times are epoch seconds, as there.
 */
import { processId, uniqueId } from '../../domain/process-id.js';
import { documentTime } from '../../domain/wire-time.js';
import type { SensorEvent } from '../../ingest/event.schemas.js';
import type { ForwardRecord } from './forwarder-format.js';

/** What every record names: the server (`cb_server`, `server_name`) and its version. */
export interface RecordOrigin {
  serverName: string;
  version: string;
}

const seconds = (ms: number) => ms / 1000;
const upperMd5 = (md5: string | null | undefined) => (md5 && md5.length === 32 ? md5.toUpperCase() : md5 ?? '');

/** The process a raw event or a hit belongs to. */
export interface ProcessFacts {
  sensorId: number;
  pid: number;
  startMs: number;
  hostname: string;
  path: string;
  md5: string;
  segmentId: number;
}

export interface AlertRow {
  id: number; unique_id: string; alert_type: string; created_ms: number; watchlist_id: string; watchlist_name: string;
  feed_id: number; feed_name: string; report_score: number; feed_rating: number; sensor_criticality: number;
  ioc_confidence: number; alert_severity: number; ioc_type: string; ioc_value: string; ioc_attr: string;
  process_id: string | null; segment_id: number | null; process_name: string | null; process_path: string | null;
  username: string | null; md5: string | null; hostname: string | null; group_name: string | null; sensor_id: number | null;
  os_type: string | null; comms_ip: string | null; interface_ip: string | null; status: string | null;
  modload_count: number | null; filemod_count: number | null; regmod_count: number | null; netconn_count: number | null;
  childproc_count: number | null; crossproc_count: number | null;
}

/** alert.watchlist.hit.* (alert_type names the kind: watchlist.hit.query.process, feed hits …). */
export function alertRecord(row: AlertRow, origin: RecordOrigin): ForwardRecord {
  return {
    type: `alert.${row.alert_type}`, cb_server: origin.serverName, cb_version: origin.version, server_name: origin.serverName,
    timestamp: seconds(row.created_ms), created_time: documentTime(row.created_ms), unique_id: row.unique_id,
    alert_type: row.alert_type, watchlist_id: row.watchlist_id, watchlist_name: row.watchlist_name,
    feed_id: row.feed_id, feed_name: row.feed_name, report_score: row.report_score, feed_rating: row.feed_rating,
    sensor_criticality: row.sensor_criticality, ioc_confidence: row.ioc_confidence, alert_severity: row.alert_severity,
    ioc_type: row.ioc_type, ioc_value: row.ioc_value, ioc_attr: row.ioc_attr, status: row.status ?? 'Unresolved',
    process_id: row.process_id, segment_id: row.segment_id, process_name: row.process_name, process_path: row.process_path,
    username: row.username, md5: upperMd5(row.md5), hostname: row.hostname, computer_name: row.hostname,
    group: row.group_name, sensor_id: row.sensor_id, os_type: row.os_type, comms_ip: row.comms_ip, interface_ip: row.interface_ip,
    modload_count: row.modload_count, filemod_count: row.filemod_count, regmod_count: row.regmod_count,
    netconn_count: row.netconn_count, childproc_count: row.childproc_count, crossproc_count: row.crossproc_count,
  };
}

export interface ProcessHitRow {
  hit_ms: number; sensor_id: number; pid: number; start_ms: number; segment_id: number; hostname: string; host_type: string;
  os_type: string; path: string; process_name: string; cmdline: string; username: string; md5: string; parent_pid: number;
  parent_name: string; parent_md5: string; last_update_ms: number; group_name: string | null;
  modload_count: number; filemod_count: number; regmod_count: number; netconn_count: number; childproc_count: number; crossproc_count: number;
}

function processDoc(row: ProcessHitRow): ForwardRecord {
  const id = processId({ sensorId: row.sensor_id, pid: row.pid, startMs: row.start_ms });
  return {
    unique_id: uniqueId(id, row.segment_id), id, segment_id: row.segment_id, sensor_id: row.sensor_id,
    hostname: row.hostname, computer_name: row.hostname, host_type: row.host_type, os_type: row.os_type, group: row.group_name,
    path: row.path, process_name: row.process_name, cmdline: row.cmdline, username: row.username, process_pid: row.pid,
    process_md5: upperMd5(row.md5), parent_pid: row.parent_pid, parent_name: row.parent_name, parent_md5: upperMd5(row.parent_md5),
    start: documentTime(row.start_ms), last_update: documentTime(row.last_update_ms),
    modload_count: row.modload_count, filemod_count: row.filemod_count, regmod_count: row.regmod_count,
    netconn_count: row.netconn_count, childproc_count: row.childproc_count, crossproc_count: row.crossproc_count,
  };
}

/** watchlist.hit.process: one record per tagged process segment. */
export function watchlistHitRecord(row: ProcessHitRow & { watchlist_id: number; watchlist_name: string }, origin: RecordOrigin): ForwardRecord {
  return {
    type: 'watchlist.hit.process', cb_server: origin.serverName, cb_version: origin.version, server_name: origin.serverName,
    timestamp: seconds(row.hit_ms), watchlist_id: row.watchlist_id, watchlist_name: row.watchlist_name, docs: [processDoc(row)],
  };
}

/** feed.ingress.hit.process: a feed report's IOC matched a process as it arrived. */
export function feedHitRecord(
  row: ProcessHitRow & { feed_id: number; feed_name: string; report_id: string; report_score: number },
  origin: RecordOrigin,
): ForwardRecord {
  return {
    type: 'feed.ingress.hit.process', cb_server: origin.serverName, cb_version: origin.version, server_name: origin.serverName,
    timestamp: seconds(row.hit_ms), feed_id: row.feed_id, feed_name: row.feed_name, report_id: row.report_id,
    report_score: row.report_score, sensor_id: row.sensor_id, hostname: row.hostname, computer_name: row.hostname,
    group: row.group_name, os_type: row.os_type,
    process_guid: processId({ sensorId: row.sensor_id, pid: row.pid, startMs: row.start_ms }), segment_id: row.segment_id,
    docs: [processDoc(row)],
  };
}

export interface BinaryRow { md5: string; sha256: string; size: number; first_seen_ms: number; metadata: string }

/** binaryinfo.observed: a binary the server had not seen before. */
export function binaryRecord(row: BinaryRow, origin: RecordOrigin): ForwardRecord {
  return {
    type: 'binaryinfo.observed', cb_server: origin.serverName, cb_version: origin.version, server_name: origin.serverName,
    timestamp: seconds(row.first_seen_ms), md5: upperMd5(row.md5), sha256: row.sha256, size: row.size, scores: {}, watchlists: {},
  };
}

export interface SensorStateRow {
  changed_ms: number; sensor_id: number; state: string; computer_name: string; computer_dns_name: string; os_type: string; group_name: string | null;
}

/** sensor.status.*, sensor.isolation.*, sensor.uninstall.*: a sensor's state changed (sensor-state-changes.ts names them). */
export function sensorStateRecord(row: SensorStateRow, origin: RecordOrigin): ForwardRecord {
  return {
    type: row.state, cb_server: origin.serverName, cb_version: origin.version, server_name: origin.serverName,
    timestamp: seconds(Number(row.changed_ms)), sensor_id: Number(row.sensor_id), computer_name: row.computer_name, hostname: row.computer_name,
    computer_dns_name: row.computer_dns_name, group: row.group_name, os_type: row.os_type,
  };
}

/** Vigil's event types under cb-event-forwarder's names (ingress.event.<name>). */
export const RAW_EVENT_NAMES: Readonly<Record<SensorEvent['type'], string>> = {
  process_start: 'procstart', process_end: 'procend', filemod: 'filemod', regmod: 'regmod', netconn: 'netconn',
  modload: 'moduleload', childproc: 'childproc', crossproc: 'crossprocopen', processblock: 'processblock',
};

export const FILEMOD_ACTIONS: Readonly<Record<string, number>> = { create: 1, first_write: 2, delete: 4, last_write: 8 };
export const REGMOD_ACTIONS: Readonly<Record<string, number>> = { create_key: 1, first_write: 2, delete_key: 4, delete_value: 8 };
export const CROSSPROC_TYPES: Readonly<Record<string, string>> = { remote_thread: 'remote_thread', process_open: 'process_open', thread_open: 'thread_open' };
