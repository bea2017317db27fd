/**
 * The JSON forms of events (reference core §4.5–4.6): netconn objects from v2, childproc objects
 * from v3, and processblock records, which are JSON text in every version.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { EventOf } from '../../../ingest/event.schemas.js';
import { bool, ipAsInteger, isoMicros, isoMillis, referencedProcess } from './wire.js';

const IntegerIp = Type.Union([Type.Integer(), Type.String()], { description: 'IPv4 as a signed 32-bit integer; IPv6 as text' });

function netconnSchema<Ip extends typeof IntegerIp | ReturnType<typeof Type.String>>(ip: Ip) {
  return Type.Object({
    timestamp: Type.String(),
    proto: Type.Integer({ description: '6 TCP, 17 UDP' }),
    domain: Type.String(),
    direction: Type.String({ description: '"true" outbound, "false" inbound: a string, as cbapi compares it' }),
    local_ip: Type.Optional(ip),
    local_port: Type.Optional(Type.Integer()),
    remote_ip: ip,
    remote_port: Type.Integer(),
    proxy_ip: Type.Optional(ip),
    proxy_port: Type.Optional(Type.Integer()),
  });
}

export const NetconnIntegerObject = netconnSchema(IntegerIp);
export const NetconnTextObject = Type.Composite([
  netconnSchema(Type.String({ description: 'dotted IPv4 or IPv6 text' })),
  Type.Object({ ja3: Type.Optional(Type.String()), ja3s: Type.Optional(Type.String()) }),
]);
export type NetconnObject = Static<typeof NetconnIntegerObject> | Static<typeof NetconnTextObject>;

/** v2/v3 give addresses as integers; v4 as text, with the TLS fingerprints. */
export function netconnObject(event: EventOf<'netconn'>, addresses: 'integer' | 'text'): NetconnObject {
  const ip = addresses === 'integer' ? ipAsInteger : (text: string) => text;
  const object: Record<string, unknown> = {
    timestamp: isoMillis(event.ts),
    proto: event.proto,
    domain: event.domain ?? '',
    direction: bool(event.direction === 'outbound'),
  };
  if (event.local_ip !== undefined) object.local_ip = ip(event.local_ip);
  if (event.local_port !== undefined) object.local_port = event.local_port;
  object.remote_ip = ip(event.remote_ip);
  object.remote_port = event.remote_port;
  if (event.proxy_ip !== undefined) object.proxy_ip = ip(event.proxy_ip);
  if (event.proxy_port !== undefined) object.proxy_port = event.proxy_port;
  if (addresses === 'text') {
    if (event.ja3 !== undefined) object.ja3 = event.ja3;
    if (event.ja3s !== undefined) object.ja3s = event.ja3s;
  }
  return object as NetconnObject;
}

export const ChildprocObject = Type.Object({
  md5: Type.String(),
  sha256: Type.Optional(Type.String({ description: 'v4' })),
  path: Type.String(),
  commandLine: Type.String(),
  userName: Type.String(),
  pid: Type.Integer(),
  processId: Type.String({ description: 'the child\'s unique_id at segment 1' }),
  is_suppressed: Type.Boolean(),
  is_tampered: Type.Boolean(),
  type: Type.String({ description: 'start or end; the time is under the key of that name' }),
  start: Type.Optional(Type.String()),
  end: Type.Optional(Type.String()),
});
export type ChildprocObject = Static<typeof ChildprocObject>;

export function childprocObject(event: EventOf<'childproc'>, sensorId: number, withSha256: boolean): ChildprocObject {
  return {
    md5: event.md5 ?? '',
    ...(withSha256 ? { sha256: event.sha256 ?? '' } : {}),
    path: event.path,
    commandLine: event.cmdline ?? '',
    userName: event.username ?? '',
    pid: event.child_pid,
    processId: referencedProcess(sensorId, event.child_pid, event.child_start),
    is_suppressed: event.suppressed ?? false,
    is_tampered: event.tamper ?? false,
    type: event.action,
    [event.action]: isoMicros(event.ts),
  };
}

/** A JSON text with every key of the record; the sensor's unreported numbers read 0. */
export function processblockRecord(event: EventOf<'processblock'>): string {
  return JSON.stringify({
    timestamp: isoMillis(event.ts),
    block_type: event.block_type ?? 0,
    block_event: event.block_event ?? 0,
    block_result: event.block_result ?? 0,
    block_error: event.block_error ?? 0,
    blocked_md5: event.blocked_md5,
    blocked_path: event.blocked_path,
    blocked_cmdline: event.blocked_cmdline ?? '',
    blocked_uid: event.blocked_uid ?? '',
    blocked_username: event.blocked_username ?? '',
  });
}
