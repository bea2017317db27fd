/**
 * A stored segment and its process as a process-search document (reference core §3.4), in the
 * 6.x shapes: GUID ids, 12-hex-digit unique ids, parents referenced at segment 1, lower-case host
 * and group names, Solr-style times. A minimal mapping of its own; the process-detail module
 * builds the fuller document of the summary and events routes.
 */
import { processId, REFERENCE_SEGMENT, uniqueId, unknownParentId } from '../../domain/process-id.js';
import { documentTime } from '../../domain/wire-time.js';
import { ipv4ToInt, toSignedInt32 } from '../../query/values/ip.js';
import type { ProcessRow } from './process-search.plan.js';
import type { ProcessDocument } from './process-search.schemas.js';

const UNKNOWN_MD5 = '0'.repeat(32);

export function processDocument(row: ProcessRow): ProcessDocument {
  const id = processId({ sensorId: row.sensor_id, pid: row.pid, startMs: row.start_ms });
  const parentKnown = row.parent_pid >= 0 && row.parent_start_ms !== null;
  const parentId = parentKnown
    ? processId({ sensorId: row.sensor_id, pid: row.parent_pid, startMs: row.parent_start_ms! })
    : unknownParentId(row.sensor_id);
  const ip = sensorAddress(row.ip_addresses);
  return {
    id,
    unique_id: uniqueId(id, row.segment_id),
    segment_id: row.segment_id,
    process_pid: row.pid,
    process_name: row.process_name,
    path: row.path,
    cmdline: row.cmdline,
    process_md5: row.md5,
    process_sha256: row.sha256,
    username: row.username,
    uid: row.uid,
    parent_id: parentId,
    parent_unique_id: uniqueId(parentId, REFERENCE_SEGMENT),
    parent_pid: parentKnown ? row.parent_pid : -1,
    parent_name: row.parent_name || '(unknown)',
    parent_md5: row.parent_md5 || UNKNOWN_MD5,
    sensor_id: row.sensor_id,
    hostname: row.hostname.toLowerCase(),
    group: (row.group_name ?? '').toLowerCase(),
    host_type: row.host_type,
    os_type: row.os_type,
    start: documentTime(row.start_ms),
    last_update: documentTime(row.last_update_ms),
    last_server_update: documentTime(row.last_server_update_ms),
    terminated: row.end_ms !== null,
    comms_ip: ip,
    interface_ip: ip,
    filtering_known_dlls: false,
    emet_config: '',
    emet_count: 0,
    modload_count: row.modload_count,
    filemod_count: row.filemod_count,
    regmod_count: row.regmod_count,
    netconn_count: row.netconn_count,
    childproc_count: row.childproc_count,
    crossproc_count: row.crossproc_count,
    processblock_count: row.processblock_count,
    watchlists: [],
  };
}

/** The sensor's first reported IPv4 address as Carbon Black's signed 32-bit integer; 0 when none. */
function sensorAddress(addresses: string | null): number {
  for (const address of (addresses ?? '').split('|')) {
    const value = ipv4ToInt(address);
    if (value !== undefined) return toSignedInt32(value);
  }
  return 0;
}
