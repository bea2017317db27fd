/**
 * The edge for Sysmon: one Windows event, in the flat form shippers write, becomes the host it
 * came from and Vigil's own events (sysmon-events.ts), or a named reason it was not kept. After
 * this, Sysmon events are sensor events like any other and take the ordinary ingest pipeline.
 *
 * A process is known by its pid and the start time its Sysmon ProcessGuid carries, so every
 * event of a process names it the same way without the decoder remembering anything. Windows
 * Security events (4688, 4689) have no GUID: a 4688 starts a process at its own time, and the
 * decoder remembers that start so the process's 4689, and its children's 4688s, can name it.
 */
import { LRUCache } from 'lru-cache';
import type { OsType } from '../../domain/sensor-identity.js';
import type { SensorEvent } from '../event.schemas.js';
import { binaryOf, type SysmonBinary } from './sysmon-binaries.js';
import { SYSMON_MAPPERS, driverLoad, type Actor, type Mapped } from './sysmon-events.js';
import { guidStartMs, integer, parseTime, text, type SysmonRecord } from './sysmon-fields.js';
import type { SysmonSkipReason } from './sysmon-reasons.js';

export interface SysmonHost {
  /** As Carbon Black shows computer_name: the host's name without its domain. */
  name: string;
  /** The name as the event gave it, domain included when it had one. */
  dnsName: string;
  osType: OsType;
}

/**
 * Events of a host, or why there are none (with the host, when the event got as far as naming it).
 * `security`: they come from Security 4688/4689, which a host that runs Sysmon reports twice.
 */
export type Decoded =
  | { host: SysmonHost; events: SensorEvent[]; security: boolean; binary?: SysmonBinary | undefined }
  | { reason: SysmonSkipReason; detail: string; host?: SysmonHost };

/**
 * An event as far as it decodes without the decoder's memory, which is all of a Sysmon event: so
 * it can be read on any thread (as JSON, which keeps no undefined fields) and settled on the one
 * that remembers. Security events need that memory and are settled whole, from their record.
 */
export type Unsettled =
  | (HostNamed & { events: SensorEvent[]; binary?: SysmonBinary | undefined })
  | (HostNamed & Refusal)
  | Refusal
  | { security: SysmonRecord; id: number };

type HostNamed = { hostname: string; osType: OsType };
type Refusal = { reason: SysmonSkipReason; detail: string };

/** Times before this are a clock that was never set, not an event. */
const EARLIEST_MS = Date.UTC(2000, 0, 1);
/** How far ahead of the server's clock an event may claim to be. */
const FUTURE_SLACK_MS = 24 * 60 * 60 * 1000;
/** Security-event processes whose start is remembered, for their exit event. */
const SECURITY_STARTS_KEPT = 100_000;
/** Hosts known to run Sysmon. */
const SYSMON_HOSTS_KEPT = 100_000;

/** Process create, driver load and image load name a file with its hashes. */
const BINARY_EVENTS: ReadonlySet<number> = new Set([1, 6, 7]);

const SYSMON_CHANNELS: ReadonlyMap<string, OsType> = new Map([
  ['microsoft-windows-sysmon/operational', 'windows'],
  ['linux-sysmon/operational', 'linux'],
]);

/** The host's name as Carbon Black shows computer_name: without its domain. */
export function shortName(hostname: string): string {
  const dot = hostname.indexOf('.');
  return dot < 0 ? hostname : hostname.slice(0, dot);
}

/** `nowMs`: the server's clock, which bounds how far in the future an event may be. */
export function decodeSysmon(record: SysmonRecord, nowMs: number): Unsettled {
  const id = integer(record, 'EventID', 'EventId', 'event_id');
  if (id === undefined) return { reason: 'unknown_event_id', detail: 'the event has no numeric EventID' };
  const channel = (text(record, 'Channel') ?? '').toLowerCase();
  if (channel === 'security' && (id === 4688 || id === 4689)) return { security: record, id };
  const osType = channel === '' ? 'windows' : SYSMON_CHANNELS.get(channel);
  if (osType === undefined) return { reason: 'not_sysmon', detail: `channel ${text(record, 'Channel')} event ${id}` };
  const hostname = text(record, 'Hostname', 'Computer')?.trim();
  if (hostname === undefined) return { reason: 'missing_hostname', detail: 'the event names no Hostname or Computer' };
  const events = eventsOf(record, id, false, nowMs, (ts) => sysmonEvent(record, id, ts));
  if ('reason' in events) return { ...events, hostname, osType };
  return { hostname, osType, events, binary: BINARY_EVENTS.has(id) ? binaryOf(record, id) : undefined };
}

export class SysmonDecoder {
  private readonly securityStarts = new LRUCache<string, number>({ max: SECURITY_STARTS_KEPT });
  private readonly sysmonHosts = new LRUCache<string, true>({ max: SYSMON_HOSTS_KEPT });
  private readonly hosts = new LRUCache<string, SysmonHost>({ max: SYSMON_HOSTS_KEPT });

  /** `nowMs`: the server's clock, which bounds how far in the future an event may be. */
  decode(record: SysmonRecord, nowMs: number): Decoded {
    return this.settle(decodeSysmon(record, nowMs), nowMs);
  }

  /** An event decoded by decodeSysmon(), here or on another thread, with what this decoder remembers. */
  settle(unsettled: Unsettled, nowMs: number): Decoded {
    if ('security' in unsettled) return this.securityEvent(unsettled.security, unsettled.id, nowMs);
    if (!('hostname' in unsettled)) return unsettled;
    const host = this.hostOf(unsettled.hostname, unsettled.osType);
    const hostKey = host.dnsName.toLowerCase();
    if (this.sysmonHosts.get(hostKey) === undefined) this.sysmonHosts.set(hostKey, true);
    if ('reason' in unsettled) return { reason: unsettled.reason, detail: unsettled.detail, host };
    return { host, events: unsettled.events, security: false, binary: unsettled.binary };
  }

  /**
   * Whether the host was seen sending Sysmon events since the server started: its Security
   * process events then tell nothing Sysmon has not, under other process identities.
   */
  runsSysmon(host: SysmonHost): boolean {
    return this.sysmonHosts.has(host.dnsName.toLowerCase());
  }

  /** One object per host name, not one per event. */
  private hostOf(hostname: string, osType: OsType): SysmonHost {
    const key = `${osType}:${hostname}`;
    let host = this.hosts.get(key);
    if (host === undefined) {
      host = { name: shortName(hostname), dnsName: hostname, osType };
      this.hosts.set(key, host);
    }
    return host;
  }

  private securityEvent(record: SysmonRecord, id: number, nowMs: number): Decoded {
    const hostname = text(record, 'Hostname', 'Computer')?.trim();
    if (hostname === undefined) return { reason: 'missing_hostname', detail: 'the event names no Hostname or Computer' };
    const host = this.hostOf(hostname, 'windows');
    const events = eventsOf(record, id, true, nowMs, (ts) => this.securityProcess(record, id, ts, host.dnsName));
    if ('reason' in events) return { ...events, host };
    return { host, events, security: true, binary: undefined };
  }

  /** 4688 starts a process and 4689 ends it, both with hexadecimal process ids. */
  private securityProcess(record: SysmonRecord, id: number, ts: number, host: string): Mapped | Refusal {
    if (id === 4689) {
      const pid = integer(record, 'ProcessId');
      if (pid === undefined) return { missing: 'ProcessId' };
      const start = this.securityStarts.get(`${host}:${pid}`);
      if (start === undefined) return { reason: 'unknown_process', detail: `exit of process ${pid}, whose 4688 was not seen` };
      return [{ type: 'process_end', ts, pid, process_start: start }];
    }
    const pid = integer(record, 'NewProcessId');
    const path = text(record, 'NewProcessName');
    if (pid === undefined) return { missing: 'NewProcessId' };
    if (path === undefined) return { missing: 'NewProcessName' };
    this.securityStarts.set(`${host}:${pid}`, ts);
    const parentPid = integer(record, 'ProcessId');
    const domain = text(record, 'SubjectDomainName');
    const user = text(record, 'SubjectUserName');
    return [{
      type: 'process_start', ts, pid, process_start: ts, path, cmdline: text(record, 'CommandLine'),
      username: user === undefined ? undefined : domain === undefined ? user : `${domain}\\${user}`,
      parent_pid: parentPid, parent_start: parentPid === undefined ? undefined : this.securityStarts.get(`${host}:${parentPid}`),
      parent_path: text(record, 'ParentProcessName'),
    }];
  }
}

/** The event's time checked, then its mapping's events, or why there are none. */
function eventsOf(record: SysmonRecord, id: number, security: boolean, nowMs: number, map: (ts: number) => Mapped | Refusal): SensorEvent[] | Refusal {
  // Sysmon writes UtcTime; Security events only the record's time, which must carry its zone.
  const time = security ? text(record, '@timestamp', 'TimeCreated', 'EventTime') : text(record, 'UtcTime');
  const ts = parseTime(time, security ? 'refuse' : 'utc');
  if (ts === undefined) return { reason: 'missing_time', detail: `no readable ${security ? 'UTC record time' : 'UtcTime'} (${time})` };
  if (ts < EARLIEST_MS || ts > nowMs + FUTURE_SLACK_MS) {
    return { reason: 'time_out_of_range', detail: `${new Date(ts).toISOString()} is before 2000 or in the future` };
  }
  const mapped = map(ts);
  if ('reason' in mapped) return mapped;
  if ('missing' in mapped) return { reason: 'missing_field', detail: `event ${id} has no ${mapped.missing}` };
  return mapped;
}

/** Which fields name the acting process, per event id (8 and 10 name a source and a target). */
function actorFields(id: number): [guid: string[], pid: string] {
  return id === 8 || id === 10 ? [['SourceProcessGuid', 'SourceProcessGUID'], 'SourceProcessId'] : [['ProcessGuid'], 'ProcessId'];
}

function sysmonEvent(record: SysmonRecord, id: number, ts: number): Mapped | Refusal {
  if (id === 6) return driverLoad(record, ts);
  const mapper = SYSMON_MAPPERS.get(id);
  if (mapper === undefined) return { reason: 'unmapped_event_id', detail: `Sysmon event ${id} has no Vigil event` };
  const [guidFields, pidField] = actorFields(id);
  const guid = text(record, ...guidFields);
  const processStart = guidStartMs(guid);
  if (processStart === undefined) {
    return { reason: 'missing_process_guid', detail: guid === undefined ? `event ${id} has no ${guidFields[0]}` : `${guid} is no Sysmon process GUID` };
  }
  const pid = integer(record, pidField);
  if (pid === undefined) return { missing: pidField };
  const actor: Actor = { ts, pid, process_start: processStart };
  return mapper(record, actor);
}
