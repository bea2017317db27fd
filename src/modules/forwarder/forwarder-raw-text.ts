/**
 * Raw sensor events as records that make their own text. LEEF is written straight from the
 * decoded event: encodeLeef's copy of the record and sort of its keys per event cost two to four
 * times as much (measured), so each type's keys are sorted once here, QRadar's address keys among
 * them. The text is byte for byte what encodeLeef makes of rawEventRecord (null and undefined
 * left out); forwarder-raw-text.property.test.ts holds the two to that. JSON is written from the
 * stored chunk's text (forwarder-raw-json.ts), held the same way to JSON.stringify of the record.
 */
import { processId } from '../../domain/process-id.js';
import { decodeChunk, STORED_TYPES } from '../../ingest/event-codec.js';
import type { SensorEvent } from '../../ingest/event.schemas.js';
import { ChunkRows, rawEventJson, secondsOf, secondsText, type ChunkJson } from './forwarder-raw-json.js';
import { escapeLeef, leefValue, TextRecord, type ForwardFormat } from './forwarder-format.js';
import { rawEventRecord } from './forwarder-raw-record.js';
import { CROSSPROC_TYPES, FILEMOD_ACTIONS, RAW_EVENT_NAMES, REGMOD_ACTIONS, type ProcessFacts, type RecordOrigin } from './forwarder-records.js';

/** What every event of one chunk shares: its process, and the text made of it once. */
export interface ChunkFacts {
  process: ProcessFacts;
  guid: string;
  origin: RecordOrigin;
}

type Value = string | number | boolean | null | undefined;
type Field = readonly [key: string, value: (event: never, chunk: ChunkFacts) => Value];

const seconds = (ms: number) => ms / 1000;
const upperMd5 = (md5: string | null | undefined) => (md5 && md5.length === 32 ? md5.toUpperCase() : md5 ?? '');
const processMd5 = (_: unknown, c: ChunkFacts) => upperMd5(c.process.md5);

/** The keys every raw record starts with. */
const COMMON: readonly Field[] = [
  ['timestamp', (e: SensorEvent) => seconds(e.ts)],
  ['cb_server', (_, c) => c.origin.serverName],
  ['type', (e: SensorEvent) => `ingress.event.${RAW_EVENT_NAMES[e.type]}`],
  ['sensor_id', (_, c) => c.process.sensorId],
  ['computer_name', (_, c) => c.process.hostname],
  ['event_type', (e: SensorEvent) => RAW_EVENT_NAMES[e.type]],
  ['pid', (_, c) => c.process.pid],
  ['process_guid', (_, c) => c.guid],
  ['process_path', (_, c) => c.process.path],
];

type Of<T extends SensorEvent['type']> = Extract<SensorEvent, { type: T }>;

/** Per event type, the keys after the common ones. */
const SPECIFIC: { readonly [T in SensorEvent['type']]: readonly (readonly [string, (event: Of<T>, chunk: ChunkFacts) => Value])[] } = {
  process_start: [
    ['path', (e) => e.path], ['md5', (e) => upperMd5(e.md5)], ['sha256', (e) => e.sha256 ?? ''], ['command_line', (e) => e.cmdline ?? ''],
    ['parent_path', (e) => e.parent_path ?? ''], ['parent_pid', (e) => e.parent_pid ?? -1],
    ['parent_create_time', (e) => (e.parent_start === undefined ? 0 : seconds(e.parent_start))],
    ['parent_md5', (e) => upperMd5(e.parent_md5)], ['username', (e) => e.username], ['uid', (e) => e.uid],
    ['filtering_known_dlls', () => false], ['expect_followon_w_md5', () => false],
  ],
  process_end: [['md5', processMd5]],
  filemod: [
    ['md5', processMd5], ['path', (e) => e.path], ['action', (e) => e.action], ['action_type', (e) => FILEMOD_ACTIONS[e.action]],
    ['file_md5', (e) => (e.md5 === undefined ? undefined : upperMd5(e.md5))], ['file_sha256', (e) => e.sha256],
    ['file_type', (e) => e.file_type ?? 0], ['tamper', (e) => e.tamper ?? false], ['tamper_sent', () => false],
  ],
  regmod: [
    ['md5', processMd5], ['path', (e) => e.path], ['action', (e) => e.action], ['action_type', (e) => REGMOD_ACTIONS[e.action]],
    ['tamper', (e) => e.tamper ?? false], ['tamper_sent', () => false],
  ],
  netconn: [
    ['md5', processMd5], ['protocol', (e) => e.proto], ['domain', (e) => e.domain ?? ''], ['direction', (e) => e.direction],
    ['local_ip', (e) => e.local_ip], ['local_port', (e) => e.local_port], ['remote_ip', (e) => e.remote_ip], ['remote_port', (e) => e.remote_port],
    ['ipv4', (e) => e.remote_ip], ['port', (e) => e.remote_port], ['proxy', (e) => e.proxy_ip !== undefined], ['proxy_ip', (e) => e.proxy_ip],
    ['proxy_port', (e) => e.proxy_port], ['ja3', (e) => e.ja3], ['ja3s', (e) => e.ja3s],
  ],
  modload: [['path', (e) => e.path], ['md5', (e) => upperMd5(e.md5)], ['sha256', (e) => e.sha256 ?? ''], ['command_line', () => '']],
  childproc: [
    ['created', (e) => e.action === 'start'], ['path', (e) => e.path], ['md5', (e) => upperMd5(e.md5)], ['sha256', (e) => e.sha256 ?? ''],
    ['child_pid', (e) => e.child_pid], ['childproc_type', (e) => (e.action === 'start' ? 'ProcessStart' : 'ProcessEnd')],
    ['childproc_commandline', (e) => e.cmdline], ['childproc_username', (e) => e.username], ['childproc_suppressed', (e) => e.suppressed ?? false],
    ['tamper', (e) => e.tamper ?? false], ['tamper_sent', () => false], ['parent_guid', (_, c) => c.guid],
  ],
  crossproc: [
    ['md5', processMd5], ['cross_process_type', (e) => CROSSPROC_TYPES[e.action]], ['is_target', (e) => e.is_target ?? false],
    ['target_md5', (e) => upperMd5(e.target_md5)], ['target_sha256', (e) => e.target_sha256 ?? ''], ['target_path', (e) => e.target_path],
    ['target_pid', (e) => e.target_pid], ['target_create_time', (e) => seconds(e.target_start)], ['requested_access', (e) => e.access],
    ['target_process_guid', (e, c) => processId({ sensorId: c.process.sensorId, pid: e.target_pid, startMs: e.target_start })],
  ],
  processblock: [
    ['md5', (e) => upperMd5(e.blocked_md5)], ['path', (e) => e.blocked_path], ['command_line', (e) => e.blocked_cmdline],
    ['uid', (e) => e.blocked_uid], ['username', (e) => e.blocked_username], ['blocked_event', (e) => e.block_event],
    ['blocked_result', (e) => e.block_result], ['blocked_error', (e) => e.block_error], ['blocked_reason', (e) => e.block_type],
  ],
};

/** QRadar's names for a netconn's addresses, by its direction (encodeLeef's addQradarAddresses). */
const byDirection = (outbound: keyof Of<'netconn'>, inbound: keyof Of<'netconn'>) =>
  (e: Of<'netconn'>) => e[e.direction === 'inbound' ? inbound : outbound] as Value;
const QRADAR: readonly Field[] = [
  ['src', byDirection('local_ip', 'remote_ip')], ['dst', byDirection('remote_ip', 'local_ip')], ['proto', (e: Of<'netconn'>) => e.proto],
  ['srcPort', byDirection('local_port', 'remote_port')], ['dstPort', byDirection('remote_port', 'local_port')],
];

const TYPES = Object.keys(SPECIFIC) as SensorEvent['type'][];
const LEEF_FIELDS = new Map(TYPES.map((type) => {
  const fields = [...COMMON, ...SPECIFIC[type], ...(type === 'netconn' ? QRADAR : [])] as Field[];
  return [type, fields.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, value]) => [`${key}=`, value] as const)];
}));

/** The LEEF record of one raw event. */
export function rawEventLeef(event: SensorEvent, chunk: ChunkFacts): string {
  const type = `ingress.event.${RAW_EVENT_NAMES[event.type]}`;
  // QRadar's DSM expects procstart under this name (encodeLeef does the same).
  let text = `LEEF:1.0|CB|CB|5.1|${type === 'ingress.event.procstart' ? 'ingress.event.process' : type}|`;
  let first = true;
  for (const [key, read] of LEEF_FIELDS.get(event.type)!) {
    const value = (read as (e: SensorEvent, c: ChunkFacts) => Value)(event, chunk);
    if (value === undefined || value === null) continue;
    text += `${first ? '' : '\t'}${key}${typeof value === 'string' ? escapeLeef(value) : leefValue(value)}`;
    first = false;
  }
  return text;
}

/**
 * One chunk's events: located in its text once, each record's text written from it when an output
 * asks (JSON from the stored text, forwarder-raw-json.ts; LEEF from the decoded events). Text is
 * not kept: writing it again for a second output costs less than the collector's work on text
 * kept for every event of the recent chunks.
 */
export class RawChunk implements ChunkJson {
  /** Undefined for text not as encodeChunk writes it: then every record goes through the decoded event. */
  private readonly rows: ChunkRows | undefined;
  private events: SensorEvent[] | undefined;
  private readonly commons: (string | undefined)[] = [];
  private processMembers: [server: string, sensor: string, process: string] | undefined;
  readonly processMd5: string;
  readonly guid: string;
  readonly sensorId: number;

  constructor(private readonly text: string, private readonly facts: ChunkFacts) {
    this.rows = ChunkRows.locate(text);
    this.processMd5 = JSON.stringify(upperMd5(facts.process.md5));
    this.guid = JSON.stringify(facts.guid);
    this.sensorId = facts.process.sensorId;
  }

  get count(): number {
    return this.rows?.count ?? this.decoded().length;
  }

  /** Adds to `records` those of the chunk's events of these types (all when undefined): a batch's records go into one array, no array per chunk. */
  addRecords(types: ReadonlySet<SensorEvent['type']> | undefined, records: RawEventRecord[]): RawEventRecord[] {
    const count = this.count;
    for (let i = 0; i < count; i++) {
      if (types === undefined || types.has(this.type(i))) records.push(new RawEventRecord(this, i));
    }
    return records;
  }

  type(index: number): SensorEvent['type'] {
    return this.rows === undefined ? this.decoded()[index]!.type : STORED_TYPES[this.rows.code(index)]!;
  }

  timestamp(index: number): number {
    return this.rows === undefined ? seconds(this.decoded()[index]!.ts) : secondsOf(this.rows.raw(index, 1)!);
  }

  timestampText(index: number): string {
    return this.rows === undefined ? String(this.timestamp(index)) : secondsText(this.rows.raw(index, 1))!;
  }

  json(index: number): string {
    if (this.rows !== undefined) return rawEventJson(this.rows, index, this);
    const { process, guid, origin } = this.facts;
    return JSON.stringify(rawEventRecord(this.decoded()[index]!, process, guid, origin));
  }

  leef(index: number): string {
    return rawEventLeef(this.decoded()[index]!, this.facts);
  }

  common(code: number): string {
    let text = this.commons[code];
    if (text === undefined) {
      const name = RAW_EVENT_NAMES[STORED_TYPES[code]!];
      // rawEventRecord's members between timestamp and the type's own, as JSON.stringify writes
      // them; the process's are written once per chunk, the names once per type.
      const [server, sensor, process] = (this.processMembers ??= this.membersOfProcess());
      text = this.commons[code] = `${server},"type":"ingress.event.${name}"${sensor},"event_type":"${name}"${process}`;
    }
    return text;
  }

  private membersOfProcess(): [server: string, sensor: string, process: string] {
    const { process, guid, origin } = this.facts;
    const members = (values: object) => {
      const text = JSON.stringify(values);
      return text === '{}' ? '' : `,${text.slice(1, -1)}`;
    };
    return [
      members({ cb_server: origin.serverName }), members({ sensor_id: process.sensorId, computer_name: process.hostname }),
      members({ pid: process.pid, process_guid: guid, process_path: process.path }),
    ];
  }

  private decoded(): SensorEvent[] {
    return (this.events ??= decodeChunk(this.text, this.facts.process.pid, this.facts.process.startMs));
  }
}

/** One raw event as a record; its text is written for each output that asks. */
export class RawEventRecord extends TextRecord {
  constructor(private readonly chunk: RawChunk, private readonly index: number) {
    super();
  }

  get timestamp(): number {
    return this.chunk.timestamp(this.index);
  }

  get timestampText(): string {
    return this.chunk.timestampText(this.index);
  }

  get type(): SensorEvent['type'] {
    return this.chunk.type(this.index);
  }

  text(format: ForwardFormat): string {
    return format === 'json' ? this.chunk.json(this.index) : this.chunk.leef(this.index);
  }
}
