/** Forwarder outputs on the wire (a Vigil resource; the settings mirror cb-event-forwarder.conf's names). */
import { Type, type Static } from '@sinclair/typebox';
import { IntegerId } from '../../http/schemas.js';

export const OutputParams = Type.Object({ id: IntegerId });

const Settings = {
  name: Type.String({ minLength: 1, maxLength: 200, description: 'Unique name of the output' }),
  enabled: Type.Optional(Type.Boolean({ default: true })),
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('leef')], { description: 'output_format: json (the Splunk app) or leef (QRadar)' })),
  type: Type.Union([Type.Literal('file'), Type.Literal('syslog'), Type.Literal('http')], { description: 'output_type' }),
  path: Type.Optional(Type.String({ maxLength: 4096, description: 'file: the output file (outfile), relative to forwarderFileDir (forwarder/ in the data dir)' })),
  rotate_bytes: Type.Optional(Type.Integer({ minimum: 1024, description: 'file: rotate once the file would pass this size (100 MiB)' })),
  rotate_seconds: Type.Optional(Type.Integer({ minimum: 1, description: 'file: rotate once the file is this old (a day)' })),
  url: Type.Optional(Type.String({ maxLength: 2048, description: 'syslog: tcp://host:port or tls://host:port; http: http(s)://… (the HEC endpoint for Splunk)' })),
  ca_cert: Type.Optional(Type.String({ maxLength: 65536, description: 'PEM of the CA that signed the receiver\'s certificate (the system\'s CAs when absent)' })),
  insecure_skip_verify: Type.Optional(Type.Boolean({ description: 'Do not verify the receiver\'s certificate (tests only)' })),
  timeout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 300, description: 'How long one delivery may take (10)' })),
  splunk_token: Type.Optional(Type.String({ maxLength: 256, description: 'http: a Splunk HEC token: batches go as HEC events with Authorization: Splunk <token>' })),
  sourcetype: Type.Optional(Type.String({ maxLength: 256, description: 'http with splunk_token: the HEC sourcetype (bit9:carbonblack:json)' })),
  headers: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 4096 }), { description: 'http: extra request headers' })),
  events_alert: Type.Optional(Type.Boolean({ description: 'alert.watchlist.hit.* records' })),
  events_watchlist: Type.Optional(Type.Boolean({ description: 'watchlist.hit.process records' })),
  events_feed: Type.Optional(Type.Boolean({ description: 'feed.ingress.hit.process records' })),
  events_binary_observed: Type.Optional(Type.Boolean({ description: 'binaryinfo.observed records' })),
  events_sensor: Type.Optional(Type.Boolean({ description: 'sensor.status.*, sensor.isolation.* and sensor.uninstall.* records (a sensor\'s state changed)' })),
  events_raw_sensor: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), {
    maxItems: 20, description: 'Raw sensor events: ALL, or procstart, procend, filemod, regmod, netconn, moduleload, childproc, crossprocopen, processblock',
  })),
};

export const OutputBody = Type.Object(Settings, { additionalProperties: false });
export type OutputBody = Static<typeof OutputBody>;

export const Output = Type.Object({
  id: Type.Integer(),
  ...Settings,
  enabled: Type.Boolean(),
  format: Type.String(),
  splunk_token: Type.Optional(Type.String({ description: 'Never shown: ******** when one is set (send it back as is to keep it)' })),
  created: Type.String({ description: 'ISO-8601 UTC' }),
  updated: Type.String({ description: 'ISO-8601 UTC' }),
});
export type Output = Static<typeof Output>;

export const SourceStatus = Type.Object({
  source: Type.String({ description: 'alert, watchlist.hit.process, feed.ingress.hit.process, binaryinfo.observed or raw' }),
  forwarded: Type.Integer({ description: 'Records delivered from this source' }),
  cursor_time: Type.Union([Type.String(), Type.Null()], { description: 'Server time of the last record delivered (ISO-8601 UTC)' }),
  lag_seconds: Type.Number({ description: 'How far the newest record of the source is ahead of the cursor' }),
  last_success: Type.Union([Type.String(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  last_error_time: Type.Union([Type.String(), Type.Null()]),
});

export const OutputStatus = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  enabled: Type.Boolean(),
  healthy: Type.Boolean({ description: 'false while a source\'s last delivery failed' }),
  sources: Type.Array(SourceStatus),
});
export type OutputStatus = Static<typeof OutputStatus>;

export const Success = Type.Object({ result: Type.Literal('success') });
