/**
 * An output's definition, checked and turned into the parts that run it: the output itself
 * (file, syslog, HTTP) and the sources it reads. Checks here need no network; `POST …/test`
 * sends a record to find out the rest (forwarder.service.ts).
 */
import { X509Certificate } from 'node:crypto';
import { isAbsolute, relative, resolve } from 'node:path';
import { InvalidRequestError } from '../../domain/errors.js';
import type { SensorEvent } from '../../ingest/event.schemas.js';
import type { ForwardFormat } from './forwarder-format.js';
import { RAW_EVENT_NAMES } from './forwarder-records.js';
import type { ForwardSource, SourceName } from './forwarder-sources.js';
import type { OutputDefinition, OutputRecord } from './forwarder.store.js';
import { FileOutput } from './outputs/file-output.js';
import { HttpOutput } from './outputs/http-output.js';
import type { ForwardOutput } from './outputs/output.js';
import { SyslogOutput } from './outputs/syslog-output.js';

/** Which records an output takes, as cb-event-forwarder's events_* settings name them. */
export interface OutputEvents {
  events_alert: boolean;
  events_watchlist: boolean;
  events_feed: boolean;
  events_binary_observed: boolean;
  /** sensor.status.*, sensor.isolation.*, sensor.uninstall.* (cb-event-forwarder had none: Vigil's own). */
  events_sensor: boolean;
  /** Raw sensor event types (procstart, netconn … or ALL); none when empty. */
  events_raw_sensor: string[];
}

const RAW_BY_NAME = new Map(Object.entries(RAW_EVENT_NAMES).map(([type, name]) => [name, type as SensorEvent['type']]));
export const RAW_SENSOR_NAMES = [...RAW_BY_NAME.keys()];

/** The Vigil event types of events_raw_sensor; undefined for all of them. */
export function rawEventTypes(names: readonly string[]): Set<SensorEvent['type']> | undefined {
  if (names.some((name) => name.toUpperCase() === 'ALL')) return undefined;
  const types = new Set<SensorEvent['type']>();
  for (const name of names) {
    const type = RAW_BY_NAME.get(name.replace(/^ingress\.event\./, ''));
    if (type === undefined) throw new InvalidRequestError(`events_raw_sensor: unknown event type ${JSON.stringify(name)}; known: ALL, ${RAW_SENSOR_NAMES.join(', ')}`);
    types.add(type);
  }
  return types;
}

export function eventsOf(definition: Pick<OutputDefinition, 'sources'>): OutputEvents {
  const s = definition.sources;
  return {
    events_alert: s.events_alert === true, events_watchlist: s.events_watchlist === true, events_feed: s.events_feed === true,
    events_binary_observed: s.events_binary_observed === true, events_sensor: s.events_sensor === true,
    events_raw_sensor: Array.isArray(s.events_raw_sensor) ? (s.events_raw_sensor as string[]) : [],
  };
}

export interface SourceSet {
  sql: Omit<Record<SourceName, ForwardSource>, 'raw'>;
  /** Raw events, narrowed to the types an output asked for. */
  raw: { only(types: ReadonlySet<SensorEvent['type']> | undefined): ForwardSource };
}

/** The sources an output reads, by the name its cursor is kept under. */
export function outputSources(events: OutputEvents, sources: SourceSet): [SourceName, ForwardSource][] {
  const chosen: [SourceName, ForwardSource][] = [];
  if (events.events_alert) chosen.push(['alert', sources.sql.alert]);
  if (events.events_watchlist) chosen.push(['watchlist.hit.process', sources.sql['watchlist.hit.process']]);
  if (events.events_feed) chosen.push(['feed.ingress.hit.process', sources.sql['feed.ingress.hit.process']]);
  if (events.events_binary_observed) chosen.push(['binaryinfo.observed', sources.sql['binaryinfo.observed']]);
  if (events.events_sensor) chosen.push(['sensor.status', sources.sql['sensor.status']]);
  if (events.events_raw_sensor.length > 0) chosen.push(['raw', sources.raw.only(rawEventTypes(events.events_raw_sensor))]);
  return chosen;
}

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
const num = (value: unknown, fallback: number) => (typeof value === 'number' ? value : fallback);

function checkedUrl(field: string, value: unknown, protocols: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(text(value) ?? '');
  } catch {
    throw new InvalidRequestError(`${field}: ${JSON.stringify(value ?? '')} is not a URL (${protocols.map((p) => `${p}//host:port`).join(', ')})`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new InvalidRequestError(`${field}: ${url.protocol} is not offered; use ${protocols.join(' or ')}${url.protocol === 'udp:' ? ' (UDP loses records without a word)' : ''}`);
  }
  if (url.hostname === '') throw new InvalidRequestError(`${field}: the URL names no host`);
  return url;
}

function checkedCa(value: unknown): string | undefined {
  const pem = text(value);
  if (pem === undefined || pem === '') return undefined;
  try {
    new X509Certificate(pem);
  } catch {
    throw new InvalidRequestError('ca_cert: not a PEM certificate');
  }
  return pem;
}

/**
 * Where a file output writes: its path taken relative to the forwarder's directory, and refused
 * when it leads out of it (an administrator's API call must not write files anywhere the server may).
 */
export function outputFile(fileDir: string, path: unknown): string {
  const text = typeof path === 'string' ? path : '';
  const file = resolve(fileDir, text);
  const inside = relative(fileDir, file);
  if (text === '' || inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
    throw new InvalidRequestError(`path: a file output writes inside ${fileDir} (forwarderFileDir); give a file name or a path below it`);
  }
  return file;
}

/** Checks a definition as saved: every field the output's kind needs, without touching the network. */
export function checkDefinition(definition: OutputDefinition, fileDir: string): void {
  const events = eventsOf(definition);
  if (!events.events_alert && !events.events_watchlist && !events.events_feed && !events.events_binary_observed && !events.events_sensor && events.events_raw_sensor.length === 0) {
    throw new InvalidRequestError('The output forwards nothing: set one of events_alert, events_watchlist, events_feed, events_binary_observed, events_sensor, events_raw_sensor');
  }
  rawEventTypes(events.events_raw_sensor);
  const s = definition.settings;
  if (definition.kind === 'file') {
    outputFile(fileDir, s.path);
  } else if (definition.kind === 'syslog') {
    const url = checkedUrl('url', s.url, ['tcp:', 'tls:']);
    if (url.port === '') throw new InvalidRequestError('url: a syslog URL needs a port (tcp://host:514)');
    checkedCa(s.ca_cert);
  } else {
    checkedUrl('url', s.url, ['http:', 'https:']);
    checkedCa(s.ca_cert);
  }
}

/** The running output of a checked definition. */
export function buildOutput(output: Pick<OutputRecord, 'kind' | 'format' | 'settings'>, fileDir: string): ForwardOutput {
  const s = output.settings;
  const format = output.format as ForwardFormat;
  const timeoutMs = num(s.timeout_seconds, 10) * 1000;
  if (output.kind === 'file') {
    return new FileOutput({ path: outputFile(fileDir, s.path), rotateBytes: num(s.rotate_bytes, 100 * 1024 * 1024), rotateMs: num(s.rotate_seconds, 86_400) * 1000 }, format);
  }
  const tls = { caCert: checkedCa(s.ca_cert), insecure: s.insecure_skip_verify === true, timeoutMs };
  if (output.kind === 'syslog') return new SyslogOutput({ url: text(s.url)!, ...tls }, format);
  return new HttpOutput({
    url: text(s.url)!, splunkToken: text(s.splunk_token) || undefined, sourcetype: text(s.sourcetype),
    headers: s.headers as Record<string, string> | undefined, ...tls,
  }, format);
}
