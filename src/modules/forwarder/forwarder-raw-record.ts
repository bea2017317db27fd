/**
 * Raw sensor events laid out as cb-event-forwarder's record objects, field for field
 * (protobuf_json_structs.go). JSON is written from this object: V8's JSON.stringify of it beats
 * building the text by hand (measured: about 1.5 times faster). LEEF is written directly
 * (forwarder-raw-text.ts), held to this layout by a property test.
 */
import { processId } from '../../domain/process-id.js';
import type { SensorEvent } from '../../ingest/event.schemas.js';
import type { ForwardRecord } from './forwarder-format.js';
import { CROSSPROC_TYPES, FILEMOD_ACTIONS, RAW_EVENT_NAMES, REGMOD_ACTIONS, type ProcessFacts, type RecordOrigin } from './forwarder-records.js';

const seconds = (ms: number) => ms / 1000;
const upperMd5 = (md5: string | null | undefined) => (md5 && md5.length === 32 ? md5.toUpperCase() : md5 ?? '');

/** ingress.event.*: one raw sensor event, as protobuf_json_structs.go lays it out. `guid` is the process's id, computed once per chunk. */
export function rawEventRecord(event: SensorEvent, process: ProcessFacts, guid: string, origin: RecordOrigin): ForwardRecord {
  const name = RAW_EVENT_NAMES[event.type];
  // Built by assignment rather than spread: this runs for every forwarded event.
  const r: ForwardRecord = {
    timestamp: seconds(event.ts), cb_server: origin.serverName, type: `ingress.event.${name}`, sensor_id: process.sensorId,
    computer_name: process.hostname, event_type: name, pid: process.pid, process_guid: guid, process_path: process.path,
  };
  switch (event.type) {
    case 'process_start':
      r.path = event.path; r.md5 = upperMd5(event.md5); r.sha256 = event.sha256 ?? ''; r.command_line = event.cmdline ?? '';
      r.parent_path = event.parent_path ?? ''; r.parent_pid = event.parent_pid ?? -1;
      r.parent_create_time = event.parent_start === undefined ? 0 : seconds(event.parent_start);
      r.parent_md5 = upperMd5(event.parent_md5); r.username = event.username; r.uid = event.uid;
      r.filtering_known_dlls = false; r.expect_followon_w_md5 = false;
      return r;
    case 'process_end':
      r.md5 = upperMd5(process.md5);
      return r;
    case 'filemod':
      r.md5 = upperMd5(process.md5); r.path = event.path; r.action = event.action; r.action_type = FILEMOD_ACTIONS[event.action];
      r.file_md5 = event.md5 === undefined ? undefined : upperMd5(event.md5); r.file_sha256 = event.sha256;
      r.file_type = event.file_type ?? 0; r.tamper = event.tamper ?? false; r.tamper_sent = false;
      return r;
    case 'regmod':
      r.md5 = upperMd5(process.md5); r.path = event.path; r.action = event.action; r.action_type = REGMOD_ACTIONS[event.action];
      r.tamper = event.tamper ?? false; r.tamper_sent = false;
      return r;
    case 'netconn':
      r.md5 = upperMd5(process.md5); r.protocol = event.proto; r.domain = event.domain ?? ''; r.direction = event.direction;
      r.local_ip = event.local_ip; r.local_port = event.local_port; r.remote_ip = event.remote_ip; r.remote_port = event.remote_port;
      r.ipv4 = event.remote_ip; r.port = event.remote_port; r.proxy = event.proxy_ip !== undefined; r.proxy_ip = event.proxy_ip;
      r.proxy_port = event.proxy_port; r.ja3 = event.ja3; r.ja3s = event.ja3s;
      return r;
    case 'modload':
      r.path = event.path; r.md5 = upperMd5(event.md5); r.sha256 = event.sha256 ?? ''; r.command_line = '';
      return r;
    case 'childproc':
      r.created = event.action === 'start'; r.path = event.path; r.md5 = upperMd5(event.md5); r.sha256 = event.sha256 ?? '';
      r.child_pid = event.child_pid; r.childproc_type = event.action === 'start' ? 'ProcessStart' : 'ProcessEnd';
      r.childproc_commandline = event.cmdline; r.childproc_username = event.username; r.childproc_suppressed = event.suppressed ?? false;
      r.tamper = event.tamper ?? false; r.tamper_sent = false; r.parent_guid = guid;
      return r;
    case 'crossproc':
      r.md5 = upperMd5(process.md5); r.cross_process_type = CROSSPROC_TYPES[event.action]; r.is_target = event.is_target ?? false;
      r.target_md5 = upperMd5(event.target_md5); r.target_sha256 = event.target_sha256 ?? ''; r.target_path = event.target_path;
      r.target_pid = event.target_pid; r.target_create_time = seconds(event.target_start); r.requested_access = event.access;
      r.target_process_guid = processId({ sensorId: process.sensorId, pid: event.target_pid, startMs: event.target_start });
      return r;
    case 'processblock':
      r.md5 = upperMd5(event.blocked_md5); r.path = event.blocked_path; r.command_line = event.blocked_cmdline;
      r.uid = event.blocked_uid; r.username = event.blocked_username; r.blocked_event = event.block_event;
      r.blocked_result = event.block_result; r.blocked_error = event.block_error; r.blocked_reason = event.block_type;
      return r;
  }
}
