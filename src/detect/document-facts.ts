/**
 * What an alert says about the document that hit: the process segment (its process, sensor and
 * group as stored now, reference storage: processes, segments) or the binary. Read inside the
 * detection store's transaction.
 */
import type { SqlExecutor } from '../db/database.js';
import { processId } from '../domain/process-id.js';
import { normalizeKeyword, normalizePath } from '../query/index.js';
import type { AlertProcess } from '../modules/alerts/alerts.store.js';
import { DEFAULT_CRITICALITY } from './alert-facts.js';


export interface ProcessFacts {
  process: AlertProcess;
  processRow: number;
  md5: string;
  /** The group's alert_criticality, 1-5. */
  criticality: number;
}

export interface BinaryFacts {
  observedFilename: string | null;
  hosts: number;
}

interface FactsRow {
  segment_row: number;
  segment_id: number;
  process_row: number;
  sensor_id: number;
  pid: number;
  start_ms: number;
  process_name: string;
  path: string;
  username: string;
  md5: string;
  sha256: string;
  hostname: string;
  os_type: string;
  group_id: number;
  group_name: string | null;
  group_settings: string | null;
  ip_addresses: string | null;
  modload_count: number;
  filemod_count: number;
  regmod_count: number;
  netconn_count: number;
  childproc_count: number;
  crossproc_count: number;
}

/** The facts of a process segment; undefined when there is no such segment. */
export async function processFacts(tx: SqlExecutor, segmentRow: number): Promise<ProcessFacts | undefined> {
  const row = await tx.get<FactsRow>(
    `SELECT s.id AS segment_row, s.segment_id, p.id AS process_row, p.sensor_id, p.pid, p.start_ms, p.process_name, p.path,
       p.username, p.md5, p.sha256, p.hostname, p.os_type, p.group_id, g.name AS group_name, g.settings AS group_settings,
       n.ip_addresses, s.modload_count, s.filemod_count, s.regmod_count, s.netconn_count, s.childproc_count, s.crossproc_count
     FROM segments s JOIN processes p ON p.id = s.process_id
       LEFT JOIN sensor_groups g ON g.id = p.group_id LEFT JOIN sensors n ON n.id = p.sensor_id
     WHERE s.id = ?`,
    [segmentRow],
  );
  if (!row) return undefined;
  const ip = (row.ip_addresses ?? '').split('|').find(Boolean) ?? '';
  const settings = JSON.parse(row.group_settings ?? '{}') as { alert_criticality?: number };
  return {
    processRow: row.process_row,
    md5: row.md5,
    criticality: settings.alert_criticality ?? DEFAULT_CRITICALITY,
    process: {
      segmentRow: row.segment_row,
      processId: processId({ sensorId: row.sensor_id, pid: row.pid, startMs: row.start_ms }),
      segmentId: row.segment_id,
      processName: row.process_name,
      processPath: row.path,
      processPathKey: normalizePath(row.path),
      username: row.username,
      sha256: row.sha256,
      // Carbon Black 6.x shows host and group names in lower case on documents.
      hostname: normalizeKeyword(row.hostname),
      groupId: row.group_id,
      groupName: normalizeKeyword(row.group_name ?? ''),
      sensorId: row.sensor_id,
      osType: row.os_type,
      commsIp: ip,
      interfaceIp: ip,
      counts: {
        modload: row.modload_count, filemod: row.filemod_count, regmod: row.regmod_count,
        netconn: row.netconn_count, childproc: row.childproc_count, crossproc: row.crossproc_count,
      },
    },
  };
}

export async function binaryFacts(tx: SqlExecutor, md5: string): Promise<BinaryFacts> {
  const row = await tx.get<{ filename: string | null; hosts: number }>(
    `SELECT MIN(observed_filename) AS filename, COUNT(DISTINCT sensor_id) AS hosts FROM binary_observations WHERE md5 = ?`, [md5],
  );
  return { observedFilename: row?.filename ?? null, hosts: row?.hosts ?? 0 };
}

/** The process a segment belongs to, and its sensor; undefined when there is no such segment. */
export async function processOfSegment(tx: SqlExecutor, segmentRow: number): Promise<{ processRow: number; sensorId: number } | undefined> {
  const row = await tx.get<{ process_id: number; sensor_id: number }>(
    'SELECT s.process_id, p.sensor_id FROM segments s JOIN processes p ON p.id = s.process_id WHERE s.id = ?', [segmentRow],
  );
  return row && { processRow: row.process_id, sensorId: row.sensor_id };
}
