/**
 * The mapping proper: one Sysmon event (already known to be Sysmon, its time and acting process
 * read) becomes Vigil events. docs/sysmon.md is this file as a table; keep the two together.
 * Each mapper answers the events, or the name of the field it needed and did not find.
 */
import type { SensorEvent } from '../event.schemas.js';
import { guidStartMs, hashes, integer, registryPath, text, type SysmonRecord } from './sysmon-fields.js';

/** The process that acted, as every Sysmon event names it, and when the event happened. */
export interface Actor {
  ts: number;
  pid: number;
  process_start: number;
}

/** Events, or the field that was missing. */
export type Mapped = SensorEvent[] | { missing: string };

type Mapper = (record: SysmonRecord, actor: Actor) => Mapped;

/** Carbon Black's md5 for "not known": a module load always carries one, Sysmon may hash without it. */
const UNKNOWN_MD5 = '0'.repeat(32);

function processCreate(record: SysmonRecord, actor: Actor): Mapped {
  const path = text(record, 'Image');
  if (path === undefined) return { missing: 'Image' };
  const { md5, sha256 } = hashes(text(record, 'Hashes'));
  const cmdline = text(record, 'CommandLine');
  const username = text(record, 'User');
  const parentPid = integer(record, 'ParentProcessId');
  const parentStart = guidStartMs(text(record, 'ParentProcessGuid'));
  const start: SensorEvent = {
    type: 'process_start', ...actor, path, cmdline, username, md5, sha256,
    parent_pid: parentPid, parent_start: parentStart, parent_path: text(record, 'ParentImage'),
  };
  if (parentPid === undefined || parentStart === undefined) return [start];
  // The parent's side of the same fact, as Carbon Black sensors report it: its childproc event.
  const child: SensorEvent = {
    type: 'childproc', ts: actor.ts, pid: parentPid, process_start: parentStart, action: 'start',
    child_pid: actor.pid, child_start: actor.process_start, path, md5, sha256, cmdline, username,
  };
  return [start, child];
}

function networkConnect(record: SysmonRecord, actor: Actor): Mapped {
  const outbound = text(record, 'Initiated')?.toLowerCase() !== 'false';
  const [remote, local] = outbound ? ['Destination', 'Source'] : ['Source', 'Destination'];
  const remoteIp = text(record, `${remote}Ip`);
  const remotePort = integer(record, `${remote}Port`);
  if (remoteIp === undefined) return { missing: `${remote}Ip` };
  if (remotePort === undefined) return { missing: `${remote}Port` };
  return [{
    type: 'netconn', ...actor, direction: outbound ? 'outbound' : 'inbound',
    proto: text(record, 'Protocol')?.toLowerCase() === 'udp' ? 17 : 6,
    remote_ip: remoteIp, remote_port: remotePort,
    local_ip: text(record, `${local}Ip`), local_port: integer(record, `${local}Port`),
    domain: text(record, `${remote}Hostname`),
  }];
}

/**
 * A name lookup: Carbon Black shows the resolved name on a netconn. The address is the first
 * one the answer held (`QueryResults`: "type:  5 alias;::ffff:1.2.3.4;"), port 0 as no connection
 * was made yet; an answer without an address keeps the name alone, on 0.0.0.0.
 */
function dnsQuery(record: SysmonRecord, actor: Actor): Mapped {
  const domain = text(record, 'QueryName');
  if (domain === undefined) return { missing: 'QueryName' };
  const address = (text(record, 'QueryResults') ?? '').split(';').map((part) => part.trim().replace(/^::ffff:/i, ''))
    .find((part) => /^[0-9a-f.:]+$/i.test(part) && (part.includes('.') || part.includes(':')));
  return [{ type: 'netconn', ...actor, direction: 'outbound', proto: 17, remote_ip: address ?? '0.0.0.0', remote_port: 0, domain }];
}

function moduleLoad(record: SysmonRecord, actor: Actor): Mapped {
  const path = text(record, 'ImageLoaded');
  if (path === undefined) return { missing: 'ImageLoaded' };
  const { md5, sha256 } = hashes(text(record, 'Hashes'));
  return [{ type: 'modload', ...actor, path, md5: md5 ?? UNKNOWN_MD5, sha256 }];
}

/** Both sides of a cross-process act, as Carbon Black records them: the actor's and the target's. */
function crossProcess(action: 'remote_thread' | 'process_open'): Mapper {
  return (record, actor) => {
    const targetPid = integer(record, 'TargetProcessId');
    const targetStart = guidStartMs(text(record, 'TargetProcessGuid', 'TargetProcessGUID'));
    const targetPath = text(record, 'TargetImage');
    if (targetPid === undefined) return { missing: 'TargetProcessId' };
    if (targetStart === undefined) return { missing: 'TargetProcessGuid' };
    if (targetPath === undefined) return { missing: 'TargetImage' };
    const access = action === 'process_open' ? integer(record, 'GrantedAccess') ?? 0 : 0;
    const sourcePath = text(record, 'SourceImage') ?? '';
    return [
      { type: 'crossproc', ...actor, action, target_pid: targetPid, target_start: targetStart, target_path: targetPath, access },
      {
        type: 'crossproc', ts: actor.ts, pid: targetPid, process_start: targetStart, action,
        target_pid: actor.pid, target_start: actor.process_start, target_path: sourcePath, access, is_target: true,
      },
    ];
  };
}

function fileEvent(action: 'create' | 'delete', pathField: string, hashField?: string): Mapper {
  return (record, actor) => {
    const path = text(record, pathField);
    if (path === undefined) return { missing: pathField };
    const { md5, sha256 } = hashField === undefined ? {} : hashes(text(record, hashField));
    return [{ type: 'filemod', ...actor, action, path, md5, sha256 }];
  };
}

/** Named pipes are files to Windows (`\\.\pipe\name`); Carbon Black sensors report them as filemods. */
function pipeEvent(action: 'create' | 'first_write'): Mapper {
  return (record, actor) => {
    const name = text(record, 'PipeName');
    if (name === undefined) return { missing: 'PipeName' };
    return [{ type: 'filemod', ...actor, action, path: `\\\\.\\pipe${name.startsWith('\\') ? '' : '\\'}${name}` }];
  };
}

/**
 * Event 12's kinds. NXLog has its own `EventType` ("INFO") and keeps one of the two in
 * `EventTypeOrignal` (sic), so both fields are read and the one that names a kind wins.
 */
const REGISTRY_ACTIONS = new Map<string, 'create_key' | 'delete_key' | 'delete_value'>([
  ['createkey', 'create_key'], ['deletekey', 'delete_key'], ['deletevalue', 'delete_value'], ['createvalue', 'create_key'],
]);

function registryObject(record: SysmonRecord, actor: Actor): Mapped {
  const path = text(record, 'TargetObject');
  if (path === undefined) return { missing: 'TargetObject' };
  const action = ['EventType', 'EventTypeOrignal', 'EventTypeOriginal']
    .map((field) => REGISTRY_ACTIONS.get((text(record, field) ?? '').toLowerCase()))
    .find((found) => found !== undefined);
  return [{ type: 'regmod', ...actor, action: action ?? 'create_key', path: registryPath(path) }];
}

function registrySetValue(record: SysmonRecord, actor: Actor): Mapped {
  const path = text(record, 'TargetObject');
  if (path === undefined) return { missing: 'TargetObject' };
  return [{ type: 'regmod', ...actor, action: 'first_write', path: registryPath(path) }];
}

/** A renamed key is a key created under its new name. */
function registryRename(record: SysmonRecord, actor: Actor): Mapped {
  const path = text(record, 'NewName');
  if (path === undefined) return { missing: 'NewName' };
  return [{ type: 'regmod', ...actor, action: 'create_key', path: registryPath(path) }];
}

/** Sysmon event ids Vigil maps, to their mappers; any other id is counted and dropped. */
export const SYSMON_MAPPERS: ReadonlyMap<number, Mapper> = new Map<number, Mapper>([
  [1, processCreate],
  [3, networkConnect],
  [5, (_record, actor) => [{ type: 'process_end', ...actor }]],
  [7, moduleLoad],
  [8, crossProcess('remote_thread')],
  [10, crossProcess('process_open')],
  [11, fileEvent('create', 'TargetFilename')],
  [12, registryObject],
  [13, registrySetValue],
  [14, registryRename],
  [15, fileEvent('create', 'TargetFilename', 'Hash')],
  [17, pipeEvent('create')],
  [18, pipeEvent('first_write')],
  [22, dnsQuery],
  [23, fileEvent('delete', 'TargetFilename', 'Hashes')],
  [26, fileEvent('delete', 'TargetFilename', 'Hashes')],
]);

/** Driver loads (6) name no process: they are module loads of the kernel's System process. */
export function driverLoad(record: SysmonRecord, ts: number): Mapped {
  return moduleLoad(record, { ts, pid: SYSTEM_PID, process_start: 0 });
}

/** Windows' System process, which loads drivers; its start is unknown (0) and the same for every driver. */
export const SYSTEM_PID = 4;
