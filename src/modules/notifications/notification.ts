/**
 * One notification of a watchlist or feed hit, as the outbox keeps it, and the texts each channel
 * makes of it. The id is the alert's unique_id: receivers dedupe on it (deliveries are at least
 * once). Links point at the console's process analysis page, `/#/analyze/<process_id>/<segment_id>`,
 * the path Carbon Black's console used, or at `/#/binary/<md5>` for a binary.
 */
import type { Alert } from '../alerts/alerts.schemas.js';

export interface NotificationPayload {
  id: string;
  source: { kind: 'watchlist' | 'feed'; id: number; name: string };
  /** The users an email action names (action_data's email_recipients): ids or usernames. */
  recipients?: (number | string)[];
  alert: Alert;
}

export function consoleLink(payload: NotificationPayload, consoleUrl: string): string {
  const { alert } = payload;
  if (alert.process_id !== undefined) return `${consoleUrl}/#/analyze/${alert.process_id}/${alert.segment_id}`;
  return `${consoleUrl}/#/binary/${(alert.md5 ?? '').toUpperCase()}`;
}

const sourceLabel = (payload: NotificationPayload) => `${payload.source.kind === 'watchlist' ? 'Watchlist' : 'Feed'} "${payload.source.name}"`;

export function emailMessage(payload: NotificationPayload, consoleUrl: string): { subject: string; text: string } {
  const { alert } = payload;
  const what = alert.process_name !== undefined ? `${alert.process_name} on ${alert.hostname}` : `binary ${alert.md5 ?? ''}`;
  const lines = [
    `${sourceLabel(payload)} hit ${what}.`,
    '',
    `Watchlist / report: ${alert.watchlist_name} (${alert.watchlist_id})`,
    `Feed: ${alert.feed_name}`,
    `${alert.ioc_type === 'query' ? 'Query' : `IOC (${alert.ioc_type})`}: ${alert.ioc_value}`,
    ...(alert.hostname !== undefined ? [`Host: ${alert.hostname} (sensor ${alert.sensor_id}, group ${alert.group})`] : []),
    ...(alert.process_name !== undefined ? [`Process: ${alert.process_path ?? alert.process_name} (user ${alert.username})`] : []),
    ...(alert.md5 !== undefined ? [`MD5: ${alert.md5}`] : []),
    `Severity: ${alert.alert_severity}`,
    `Time: ${alert.created_time}`,
    `Open in the console: ${consoleLink(payload, consoleUrl)}`,
    '',
    `Notification id: ${payload.id}`,
  ];
  return { subject: `[Vigil] ${sourceLabel(payload)} hit ${what}`, text: lines.join('\n') + '\n' };
}

/**
 * The syslog message body: key=value pairs as Carbon Black's syslog action wrote them (reason,
 * watchlist or feed, host, process), values with spaces quoted.
 */
export function syslogText(payload: NotificationPayload, consoleUrl: string): string {
  const { alert } = payload;
  const pairs: [string, string | number | undefined][] = [
    ['reason', alert.alert_type],
    ['notification_id', payload.id],
    [`${payload.source.kind}_id`, payload.source.id],
    [`${payload.source.kind}_name`, payload.source.name],
    ['watchlist_name', payload.source.kind === 'feed' ? alert.watchlist_name : undefined],
    ['host', alert.hostname],
    ['sensor_id', alert.sensor_id],
    ['process_name', alert.process_name],
    ['process_guid', alert.process_id],
    ['segment_id', alert.segment_id],
    ['username', alert.username],
    ['md5', alert.md5],
    ['ioc_type', alert.ioc_type],
    ['ioc_value', alert.ioc_value],
    ['alert_severity', alert.alert_severity],
    ['link', consoleLink(payload, consoleUrl)],
  ];
  return pairs.filter(([, value]) => value !== undefined && value !== '').map(([key, value]) => `${key}=${quoted(String(value))}`).join(' ');
}

function quoted(value: string): string {
  const flat = value.replace(/[\r\n]+/g, ' ');
  return /[\s"=]/.test(flat) ? `"${flat.replace(/["\\]/g, '\\$&')}"` : flat;
}
