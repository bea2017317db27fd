/** An alert as the API answers it (reference admin §3.3): read by the alert routes and sent by notifications. */
import { uniqueId as processUniqueId } from '../../domain/process-id.js';
import { documentTime } from '../../domain/wire-time.js';
import type { Alert } from './alerts.schemas.js';
import type { AlertRecord } from './alerts.store.js';

export function alertToWire(alert: AlertRecord): Alert {
  const p = alert.process;
  const optional = <T>(name: string, value: T | null | undefined) => (value === null || value === undefined ? {} : { [name]: value });
  return {
    unique_id: alert.uniqueId,
    alert_type: alert.alertType,
    status: alert.status,
    created_time: documentTime(alert.createdMs),
    ...optional('resolved_time', alert.resolvedMs === null ? null : documentTime(alert.resolvedMs)),
    ...optional('assigned_to', alert.assignedTo),
    watchlist_id: alert.watchlistId,
    watchlist_name: alert.watchlistName,
    feed_id: alert.feedId,
    feed_name: alert.feedName,
    report_score: alert.reportScore,
    ...optional('report_ignored', alert.reportIgnored),
    feed_rating: alert.feedRating,
    sensor_criticality: alert.sensorCriticality,
    ioc_confidence: alert.iocConfidence,
    alert_severity: alert.alertSeverity,
    ioc_type: alert.iocType,
    ioc_value: alert.iocValue,
    ioc_attr: alert.iocAttr,
    ...optional('description', alert.description),
    ...optional('link', alert.link),
    ...optional('md5', alert.md5),
    ...optional('observed_filename', alert.observedFilename),
    ...(p ? {
      process_id: p.processId,
      process_unique_id: processUniqueId(p.processId, p.segmentId),
      segment_id: p.segmentId,
      process_name: p.processName,
      process_path: p.processPath,
      username: p.username,
      ...optional('sha256', p.sha256 || null),
      hostname: p.hostname,
      group: p.groupName,
      sensor_id: p.sensorId,
      os_type: p.osType,
      comms_ip: p.commsIp,
      interface_ip: p.interfaceIp,
      modload_count: p.counts.modload,
      filemod_count: p.counts.filemod,
      regmod_count: p.counts.regmod,
      netconn_count: p.counts.netconn,
      childproc_count: p.counts.childproc,
      crossproc_count: p.counts.crossproc,
    } : {}),
    total_hosts: alert.totalHosts,
  };
}
