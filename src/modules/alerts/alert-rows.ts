/**
 * How an alert is kept in its rows: written once (insertAlert, inside the detection store's
 * transaction) into alerts and its triage row, and read back as an AlertRecord.
 */
import type { SqlExecutor, SqlValue } from '../../db/database.js';
import type { AlertRecord, AlertStatus, NewAlert } from './alerts.store.js';

export interface AlertRow {
  id: number;
  unique_id: string;
  alert_type: string;
  created_ms: number;
  status: AlertStatus;
  resolved_ms: number | null;
  assigned_to: string | null;
  watchlist_id: string;
  watchlist_name: string;
  feed_id: number;
  feed_name: string;
  report_row: number | null;
  report_ignored: number | boolean | null;
  report_score: number;
  feed_rating: number;
  sensor_criticality: number;
  ioc_confidence: number;
  alert_severity: number;
  ioc_type: string;
  ioc_value: string;
  ioc_attr: string;
  description: string | null;
  link: string | null;
  segment_row: number | null;
  process_id: string | null;
  segment_id: number | null;
  process_name: string | null;
  process_path: string | null;
  process_path_key: string | null;
  username: string | null;
  md5: string | null;
  sha256: string | null;
  observed_filename: string | null;
  hostname: string | null;
  group_id: number | null;
  group_name: string | null;
  sensor_id: number | null;
  os_type: string | null;
  comms_ip: string | null;
  interface_ip: string | null;
  modload_count: number | null;
  filemod_count: number | null;
  regmod_count: number | null;
  netconn_count: number | null;
  childproc_count: number | null;
  crossproc_count: number | null;
  total_hosts: number;
}

const ALERT_COLUMNS_IN_ORDER = [
  'unique_id', 'alert_type', 'created_ms', 'watchlist_id', 'watchlist_name', 'feed_id', 'feed_name', 'report_row',
  'report_score', 'feed_rating', 'sensor_criticality', 'ioc_confidence', 'alert_severity', 'ioc_type', 'ioc_value', 'ioc_attr',
  'description', 'link', 'md5', 'observed_filename', 'total_hosts', 'segment_row', 'process_id', 'segment_id', 'process_name',
  'process_path', 'process_path_key', 'username', 'sha256', 'hostname', 'group_id', 'group_name', 'sensor_id', 'os_type',
  'comms_ip', 'interface_ip', 'modload_count', 'filemod_count', 'regmod_count', 'netconn_count', 'childproc_count', 'crossproc_count',
] as const;

/** Adds an Unresolved alert, inside the caller's transaction. */
export async function insertAlert(tx: SqlExecutor, alert: NewAlert): Promise<void> {
  const p = alert.process;
  const values: SqlValue[] = [
    alert.uniqueId, alert.alertType, alert.createdMs, alert.watchlistId, alert.watchlistName, alert.feedId, alert.feedName,
    alert.reportRow, alert.reportScore, alert.feedRating, alert.sensorCriticality, alert.iocConfidence, alert.alertSeverity, alert.iocType,
    alert.iocValue, alert.iocAttr, alert.description, alert.link, alert.md5, alert.observedFilename, alert.totalHosts,
    p?.segmentRow ?? null, p?.processId ?? null, p?.segmentId ?? null, p?.processName ?? null, p?.processPath ?? null,
    p?.processPathKey ?? null, p?.username ?? null, p?.sha256 ?? null, p?.hostname ?? null, p?.groupId ?? null, p?.groupName ?? null,
    p?.sensorId ?? null, p?.osType ?? null, p?.commsIp ?? null, p?.interfaceIp ?? null, p?.counts.modload ?? null,
    p?.counts.filemod ?? null, p?.counts.regmod ?? null, p?.counts.netconn ?? null, p?.counts.childproc ?? null, p?.counts.crossproc ?? null,
  ];
  const row = await tx.get<{ id: number }>(
    `INSERT INTO alerts (${ALERT_COLUMNS_IN_ORDER.join(', ')}) VALUES (${ALERT_COLUMNS_IN_ORDER.map(() => '?').join(', ')}) RETURNING id`,
    values,
  );
  await tx.run(`INSERT INTO alert_triage (alert_id, status) VALUES (?, 'Unresolved')`, [row!.id]);
}

export function toRecord(row: AlertRow): AlertRecord {
  return {
    uniqueId: row.unique_id,
    alertType: row.alert_type,
    createdMs: row.created_ms,
    status: row.status,
    resolvedMs: row.resolved_ms,
    assignedTo: row.assigned_to,
    watchlistId: row.watchlist_id,
    watchlistName: row.watchlist_name,
    feedId: row.feed_id,
    feedName: row.feed_name,
    reportRow: row.report_row,
    reportIgnored: row.report_ignored === null ? null : Boolean(row.report_ignored),
    reportScore: row.report_score,
    feedRating: row.feed_rating,
    sensorCriticality: row.sensor_criticality,
    iocConfidence: row.ioc_confidence,
    alertSeverity: row.alert_severity,
    iocType: row.ioc_type,
    iocValue: row.ioc_value,
    iocAttr: row.ioc_attr,
    description: row.description,
    link: row.link,
    md5: row.md5,
    observedFilename: row.observed_filename,
    totalHosts: row.total_hosts,
    process: row.segment_row === null ? null : {
      segmentRow: row.segment_row,
      processId: row.process_id!,
      segmentId: row.segment_id!,
      processName: row.process_name!,
      processPath: row.process_path!,
      processPathKey: row.process_path_key!,
      username: row.username!,
      sha256: row.sha256 ?? '',
      hostname: row.hostname!,
      groupId: row.group_id!,
      groupName: row.group_name!,
      sensorId: row.sensor_id!,
      osType: row.os_type!,
      commsIp: row.comms_ip!,
      interfaceIp: row.interface_ip!,
      counts: {
        modload: row.modload_count ?? 0, filemod: row.filemod_count ?? 0, regmod: row.regmod_count ?? 0,
        netconn: row.netconn_count ?? 0, childproc: row.childproc_count ?? 0, crossproc: row.crossproc_count ?? 0,
      },
    },
  };
}
