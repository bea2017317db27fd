/**
 * Authentication for every route, in one place, decided by the route that will run (its policy,
 * src/http/route-policy.ts), never by the request's spelling of the URL: the router decodes
 * percent-encoding and strips absolute-form targets, so a check on the raw URL can be walked
 * around (issue 17, docs/adr/0012-route-authentication.md). Console sessions: docs/adr/0021-console-sessions.md.
 *
 * - user: X-Auth-Token must carry a user's API token (reference core §2); without one, the
 *   console's session cookie will do, and then a state-changing call must also carry the session's
 *   CSRF token in X-CSRF-Token (403 otherwise): the browser sends the cookie on its own, so the
 *   cookie alone proves nothing about who wrote the request.
 * - sensor: Authorization must carry a sensor's id and secret (docs/sensor-protocol.md).
 * - A target that routes nowhere needs a token when it looks like /api after normalization, so
 *   an unknown /api path without a token is a 401 too and reveals nothing; other unknown paths are 404.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { ForbiddenError, UnauthorizedError } from '../domain/errors.js';
import type { Principal } from '../domain/permissions.js';
import { looksLikeApiPath, routePolicy, type AuthPolicy } from './route-policy.js';
import { sessionIdFromCookies } from './session-cookie.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set for every request to a `user` route that got past authentication. */
    principal: Principal;
    /** Set when that authentication was by the console's session cookie rather than an API token. */
    consoleSession: ConsoleSessionCredential | undefined;
  }
}

export interface ConsoleSessionCredential {
  sessionId: string;
  csrfToken: string;
  principal: Principal;
  expiresMs: number;
}

export interface SessionAuthenticator {
  /** The live session with this id; throws UnauthorizedError otherwise. */
  authenticate(sessionId: string): Promise<ConsoleSessionCredential>;
}

/** Methods that change nothing, so need no CSRF token (the API keeps to that). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface Authenticator {
  authenticate(token: string | undefined): Promise<Principal>;
}

export interface SensorAuthenticator {
  /** The sensor behind an Authorization header; throws UnauthorizedError otherwise. */
  authenticate(header: string | undefined): Promise<FastifyRequest['sensor']>;
}

export interface RegisteredRoute {
  method: string;
  url: string;
  auth: AuthPolicy;
}

const registeredRoutes = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** Every route registered on the app so far, with the policy it got: for audits and tests. */
export function routesWithPolicies(app: FastifyInstance): readonly RegisteredRoute[] {
  return registeredRoutes.get(app) ?? [];
}

/** Must run before any route is registered: a route added earlier would get no policy. */
export function registerAuthentication(
  app: FastifyInstance,
  authenticators: { users: Authenticator; sensors: SensorAuthenticator; sessions: SessionAuthenticator },
): void {
  const routes: RegisteredRoute[] = [];
  registeredRoutes.set(app, routes);
  app.decorateRequest('principal', undefined as unknown as Principal);
  app.decorateRequest('consoleSession', undefined);
  app.decorateRequest('sensor', undefined as unknown as FastifyRequest['sensor']);

  app.addHook('onRoute', function assignPolicy(route) {
    const auth = routePolicy(this, String(route.method), route.url ?? '', route.config?.auth);
    route.config = { ...route.config, auth };
    for (const method of [route.method].flat()) routes.push({ method, url: route.url ?? '', auth });
  });

  app.addHook('onRequest', async (request) => {
    switch (policyOf(request)) {
      case 'public':
        return;
      case 'sensor':
        request.sensor = await authenticators.sensors.authenticate(request.headers.authorization);
        return;
      case 'user': {
        const header = request.headers['x-auth-token'];
        const sessionId = sessionIdFromCookies(request.headers.cookie);
        if (header !== undefined || sessionId === undefined) {
          request.principal = await authenticators.users.authenticate(typeof header === 'string' ? header.trim() : undefined);
          return;
        }
        const session = await authenticators.sessions.authenticate(sessionId);
        if (!SAFE_METHODS.has(request.method)) requireCsrfToken(request.headers['x-csrf-token'], session.csrfToken);
        request.principal = session.principal;
        request.consoleSession = session;
        return;
      }
      case 'refuse':
        throw new UnauthorizedError('This route has no authentication policy');
    }
  });
}

function requireCsrfToken(presented: string | string[] | undefined, expected: string): void {
  const given = Buffer.from(typeof presented === 'string' ? presented : '');
  const wanted = Buffer.from(expected);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
    throw new ForbiddenError('A call authenticated by the session cookie must carry its CSRF token in X-CSRF-Token', 'csrf_token_invalid');
  }
}

function policyOf(request: FastifyRequest): AuthPolicy | 'refuse' {
  if (request.is404) return looksLikeApiPath(request.url) ? 'user' : 'public';
  // Only a route registered before this hook could lack a policy; it is refused, not served.
  return request.routeOptions.config.auth ?? 'refuse';
}
