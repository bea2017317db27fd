/**
 * Times on Carbon Black's database-backed records (sensors, watchlists, bans) read
 * "YYYY-MM-DD HH:MM:SS.ffffff±HH:MM" in the server's local time zone: what Python's str() made of
 * a Postgres timestamptz (reference core §1). Clients parse them with dateutil, so the offset must
 * be there; the microseconds are the milliseconds Vigil keeps, padded.
 */

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

export function formatRecordTime(ms: number): string {
  const offsetMinutes = -new Date(ms).getTimezoneOffset();
  // The UTC fields of a date shifted by the offset are the local fields, whatever TZ the process has.
  const local = new Date(ms + offsetMinutes * 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const offset = Math.abs(offsetMinutes);
  return (
    `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())} ` +
    `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}.${pad(local.getUTCMilliseconds() * 1000, 6)}` +
    `${sign}${pad(Math.floor(offset / 60))}:${pad(offset % 60)}`
  );
}

/**
 * A time a client sent: this format, ISO 8601, or the RFC 822 form cbapi sends for
 * event_log_flush_time ("Wed, 01 Jan 2020 00:00:00 GMT"). undefined when it is none of them.
 */
export function parseClientTime(text: string): number | undefined {
  if (!/^(\d{4}-\d{2}-\d{2}|[A-Za-z]{3}, \d{1,2} [A-Za-z]{3} \d{4} )/.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}
