/**
 * Carbon Black's timestamps on records its PostgreSQL kept (bans, watchlists, sensors): Python's
 * str(datetime) of an aware UTC time, "2021-06-10 06:25:58.431602+00:00". Like Python, the
 * fraction is left out when it is zero. cbapi parses these with dateutil.
 */
export function postgresTimestamp(epochMs: number): string {
  const iso = new Date(epochMs).toISOString(); // 2021-06-10T06:25:58.431Z
  const fraction = iso.slice(20, 23) === '000' ? '' : `.${iso.slice(20, 23)}000`;
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction}+00:00`;
}
