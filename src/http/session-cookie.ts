/**
 * The console's session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site's
 * page sends it), Path=/, Secure unless the server speaks plain HTTP (where a browser would drop a
 * Secure cookie), and expiring at the session's absolute end.
 */
export const SESSION_COOKIE = 'vigil_session';

export function sessionCookie(sessionId: string, maxAgeSeconds: number, secure: boolean): string {
  return cookie(sessionId, maxAgeSeconds, secure);
}

/** Tells the browser to drop the cookie. */
export function clearedSessionCookie(secure: boolean): string {
  return cookie('', 0, secure);
}

function cookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return [`${SESSION_COOKIE}=${value}`, `Max-Age=${maxAgeSeconds}`, 'Path=/', 'HttpOnly', 'SameSite=Strict', ...(secure ? ['Secure'] : [])].join('; ');
}

/** The session id in a Cookie header; undefined when there is none (several: the first). */
export function sessionIdFromCookies(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const separator = pair.indexOf('=');
    if (separator > 0 && pair.slice(0, separator).trim() === SESSION_COOKIE) return pair.slice(separator + 1).trim();
  }
  return undefined;
}
