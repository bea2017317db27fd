/**
 * Console logins: a username and password give a session, identified by a random id that only the
 * browser's cookie holds, and a CSRF token derived from that id (so it needs no storage and dies
 * with the session). A session ends at logout, when idle too long, at its absolute end, when its
 * user is deleted, or when their password changes (a stamp of the password hash is kept with it).
 * Failed logins are slowed (login-throttle.ts) and logged, never with the password.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { TooManyRequestsError, UnauthorizedError } from '../../domain/errors.js';
import { effectiveGroupAccess, type Principal } from '../../domain/permissions.js';
import { digestsEqual, hashPassword, verifyPassword } from '../users/credentials.js';
import type { UsersStore } from '../users/users.store.js';
import type { LoginThrottle } from './login-throttle.js';
import type { LoginBody, SessionReply } from './sessions.schemas.js';
import type { SessionsStore } from './sessions.store.js';

/** 32 random bytes, base64url. */
const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/**
 * Use is written back at most this often (or a tenth of the idle limit, if shorter): a write per
 * request would contend with ingest for the database.
 */
const TOUCH_INTERVAL_MS = 60_000;

export interface SessionLimits {
  idleMs: number;
  maxMs: number;
}

/** Where failed logins are reported (the request's logger). */
export interface LoginLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/** A session that authenticated a request. */
export interface ConsoleSession {
  sessionId: string;
  csrfToken: string;
  principal: Principal;
  expiresMs: number;
}

export interface NewLogin {
  sessionId: string;
  maxAgeSeconds: number;
  reply: SessionReply;
}

export class SessionsService {
  /** Verified against when the username is unknown, so that the answer takes as long as for a known one. */
  private decoyHash: Promise<string> | undefined;

  constructor(
    private readonly store: SessionsStore,
    private readonly users: Pick<UsersStore, 'findByUsername' | 'groupGrants'>,
    private readonly throttle: LoginThrottle,
    private readonly limits: SessionLimits,
    private readonly now: () => number = Date.now,
  ) {}

  async login(body: LoginBody, address: string, log: LoginLog): Promise<NewLogin> {
    const waitMs = this.throttle.begin(body.username, address);
    if (waitMs > 0) {
      log.warn({ username: body.username, address, retryAfterMs: waitMs }, 'login refused: too many failed attempts');
      throw new TooManyRequestsError('Too many failed logins; wait before trying again', Math.ceil(waitMs / 1000));
    }
    const user = await this.users.findByUsername(body.username);
    const stored = user?.passwordHash ?? (await (this.decoyHash ??= hashPassword(randomBytes(16).toString('hex'))));
    if (!(await verifyPassword(body.password, stored)) || !user?.passwordHash) {
      log.warn({ username: body.username, address }, 'login failed');
      throw new UnauthorizedError('Wrong username or password');
    }
    this.throttle.succeeded(body.username, address);
    const now = this.now();
    await this.store.deleteEnded(now, now - this.limits.idleMs);
    const sessionId = randomBytes(32).toString('base64url');
    const expiresMs = now + this.limits.maxMs;
    await this.store.create({
      idHash: hashSessionId(sessionId), userId: user.id, passwordStamp: passwordStamp(user.passwordHash),
      createdMs: now, lastSeenMs: now, expiresMs,
    });
    return {
      sessionId,
      maxAgeSeconds: Math.floor(this.limits.maxMs / 1000),
      reply: sessionReply(user, { csrfToken: csrfTokenOf(sessionId), expiresMs }),
    };
  }

  /** The session behind a cookie's id; UnauthorizedError when there is none or it has ended. */
  async authenticate(sessionId: string): Promise<ConsoleSession> {
    if (!SESSION_ID_PATTERN.test(sessionId)) throw new UnauthorizedError('Invalid or expired session');
    const idHash = hashSessionId(sessionId);
    const session = await this.store.find(idHash);
    if (!session) throw new UnauthorizedError('Invalid or expired session');
    const now = this.now();
    const ended = session.expiresMs <= now || session.lastSeenMs + this.limits.idleMs <= now
      || session.passwordHash === null || !digestsEqual(passwordStamp(session.passwordHash), session.passwordStamp);
    if (ended) {
      await this.store.delete(idHash);
      throw new UnauthorizedError('Invalid or expired session');
    }
    if (now - session.lastSeenMs >= Math.min(TOUCH_INTERVAL_MS, this.limits.idleMs / 10)) await this.store.touch(idHash, now);
    const principal: Principal = {
      userId: session.userId,
      username: session.username,
      globalAdmin: session.globalAdmin,
      groupAccess: effectiveGroupAccess(await this.users.groupGrants(session.userId)),
    };
    return { sessionId, csrfToken: csrfTokenOf(sessionId), principal, expiresMs: session.expiresMs };
  }

  /** Ends the session that made the request; with an API token there is none, and nothing to do. */
  async logout(session: ConsoleSession | undefined): Promise<{ result: 'success' }> {
    if (session) await this.store.delete(hashSessionId(session.sessionId));
    return { result: 'success' };
  }

  /** Who is asking, and how: the console reads its CSRF token here after a reload. */
  describe(principal: Principal, session: ConsoleSession | undefined): SessionReply {
    return sessionReply(principal, session);
  }
}

function sessionReply(
  user: { username: string; globalAdmin: boolean },
  session: Pick<ConsoleSession, 'csrfToken' | 'expiresMs'> | undefined,
): SessionReply {
  const who = { username: user.username, global_admin: user.globalAdmin };
  if (!session) return { ...who, authenticated_by: 'token' };
  return { ...who, authenticated_by: 'session', csrf_token: session.csrfToken, expires: new Date(session.expiresMs).toISOString() };
}

function hashSessionId(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex');
}

/** Keyed by the secret session id, so only its holder (or the server) can know it. */
function csrfTokenOf(sessionId: string): string {
  return createHmac('sha256', sessionId).update('vigil csrf').digest('hex');
}

function passwordStamp(passwordHash: string): string {
  return createHash('sha256').update(passwordHash).digest('hex');
}
