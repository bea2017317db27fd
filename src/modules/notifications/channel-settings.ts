/**
 * The delivery channels of watchlist and feed actions, read once from the settings at start. A
 * malformed URL or a missing companion setting stops the start with a message naming the setting,
 * rather than surfacing at the first hit.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../../config/load.js';
import type { Config } from '../../config/schema.js';

/** The channels an action type delivers through; also the outbox's channel names. */
export const CHANNELS = ['email', 'syslog', 'http_post'] as const;
export type ChannelName = (typeof CHANNELS)[number];

export interface EmailSettings {
  host: string;
  port: number;
  /** TLS from the start (smtps://); otherwise STARTTLS when offered, or required. */
  secure: boolean;
  requireStartTls: boolean;
  user?: string;
  password?: string;
  from: string;
  /** The URL without its password, for messages. */
  shown: string;
}

export type SyslogFormat = 'rfc5424' | 'rfc3164';

export interface SyslogTarget {
  transport: 'udp' | 'tcp' | 'tls';
  host: string;
  port: number;
  format: SyslogFormat;
  shown: string;
}

export interface WebhookSettings {
  url: string;
  secret: string;
  shown: string;
}

export interface ChannelSettings {
  email?: EmailSettings;
  syslog: SyslogTarget[];
  webhook?: WebhookSettings;
  /** Extra certificate authorities (PEM) trusted beside the system's. */
  ca?: string;
  timeoutMs: number;
  /** Base of links to the console (the public URL, or the address listened on). */
  consoleUrl: string;
}

const SYSLOG_PORTS = { udp: 514, tcp: 601, tls: 6514 } as const;

export function channelSettings(config: Config): ChannelSettings {
  const webhook = config.webhookUrl === undefined ? undefined : webhookSettings(config.webhookUrl, config.webhookSecret);
  return {
    ...(config.smtpUrl !== undefined && { email: emailSettings(config.smtpUrl, config.smtpFrom) }),
    syslog: config.syslogUrl === undefined ? [] : config.syslogUrl.split(',').map((url) => syslogTarget(url.trim())),
    ...(webhook && { webhook }),
    ...(config.notificationCaFile !== undefined && { ca: readCa(config.notificationCaFile) }),
    timeoutMs: config.notificationTimeoutSeconds * 1000,
    consoleUrl: (config.publicUrl || `${config.tls ? 'https' : 'http'}://${config.host}:${config.port}`).replace(/\/$/, ''),
  };
}

function parsed(setting: string, url: string): URL {
  try {
    return new URL(url);
  } catch {
    throw new ConfigError(`Invalid configuration: ${setting}: "${shown(url)}" is not a URL`);
  }
}

function emailSettings(url: string, from: string): EmailSettings {
  const u = parsed('smtpUrl', url);
  if (!u.hostname) throw new ConfigError('Invalid configuration: smtpUrl: names no host');
  const starttls = u.searchParams.get('starttls');
  if (starttls !== null && starttls !== 'required') throw new ConfigError('Invalid configuration: smtpUrl: starttls may only be "required"');
  if (!/^[^\s@]+@[^\s@]+$/.test(from)) throw new ConfigError(`Invalid configuration: smtpFrom: "${from}" is not an email address`);
  const secure = u.protocol === 'smtps:';
  return {
    host: u.hostname, port: u.port ? Number(u.port) : secure ? 465 : 587, secure, requireStartTls: starttls === 'required',
    ...(u.username && { user: decodeURIComponent(u.username) }), ...(u.password && { password: decodeURIComponent(u.password) }),
    from, shown: shown(url),
  };
}

function syslogTarget(url: string): SyslogTarget {
  const u = parsed('syslogUrl', url);
  const transport = u.protocol.slice(0, -1);
  if (transport !== 'udp' && transport !== 'tcp' && transport !== 'tls') {
    throw new ConfigError(`Invalid configuration: syslogUrl: "${shown(url)}" is not udp://, tcp:// or tls://`);
  }
  if (!u.hostname) throw new ConfigError(`Invalid configuration: syslogUrl: "${shown(url)}" names no host`);
  const format = u.searchParams.get('format') ?? 'rfc5424';
  if (format !== 'rfc5424' && format !== 'rfc3164') {
    throw new ConfigError(`Invalid configuration: syslogUrl: format "${format}" is neither rfc5424 nor rfc3164`);
  }
  return { transport, host: u.hostname.replace(/^\[|\]$/g, ''), port: u.port ? Number(u.port) : SYSLOG_PORTS[transport], format, shown: shown(url) };
}

function webhookSettings(url: string, secret: string | undefined): WebhookSettings {
  const u = parsed('webhookUrl', url);
  if (!u.hostname) throw new ConfigError('Invalid configuration: webhookUrl: names no host');
  if (secret === undefined) throw new ConfigError('Invalid configuration: webhookSecret: required with webhookUrl (the key of the HMAC signature)');
  return { url, secret, shown: shown(url) };
}

function readCa(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`Invalid configuration: notificationCaFile: ${(error as Error).message}`);
  }
}

/** A URL as it may be shown: without its password. */
function shown(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');
}
