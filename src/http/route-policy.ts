/**
 * Which credential a route needs, decided once per route when it is registered, from its pattern:
 * never from the request's spelling of the path (docs/adr/0012-route-authentication.md).
 *
 * - `user`: an analyst's API token in X-Auth-Token. Every route under /api, unless it says otherwise.
 * - `sensor`: a sensor's `Authorization: Sensor <id>:<secret>`. Every route under /sensor.
 * - `ingest`: a group's ingest key in Authorization (Sysmon shippers). Only where a route says so.
 * - `public`: nothing. Only where a route (config.auth) or its plugin scope (declareScopePolicy)
 *   says so; a route that is neither under /api nor /sensor and says nothing stops the start.
 */
import type { FastifyInstance } from 'fastify';

export type AuthPolicy = 'user' | 'sensor' | 'ingest' | 'public';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The credential this route needs; see src/http/route-policy.ts. */
    auth?: AuthPolicy;
  }
}

const SCOPE_POLICY = 'routeAuthPolicy';

/**
 * Gives every route registered in `scope` (and its child plugins) this policy unless a route says
 * otherwise: for plugins whose routes we do not write, such as the documentation page.
 */
export function declareScopePolicy(scope: FastifyInstance, policy: AuthPolicy): void {
  scope.decorate(SCOPE_POLICY, policy);
}

export class MissingRoutePolicyError extends Error {}

/** The policy of a route being registered in `scope`; throws when it has none. */
export function routePolicy(scope: FastifyInstance, method: string, url: string, declared: AuthPolicy | undefined): AuthPolicy {
  if (declared) return declared;
  if (scope.hasDecorator(SCOPE_POLICY)) return (scope as unknown as Record<string, AuthPolicy>)[SCOPE_POLICY]!;
  if (underPrefix(url, '/api')) return 'user';
  if (underPrefix(url, '/sensor')) return 'sensor';
  throw new MissingRoutePolicyError(
    `${method} ${url} has no authentication policy: give it config.auth ('user', 'sensor', 'ingest' or 'public')`,
  );
}

function underPrefix(url: string, prefix: string): boolean {
  return url === prefix || url.startsWith(prefix + '/');
}

/**
 * Whether a request target that routes nowhere names something under /api once a lenient server
 * or proxy would have normalized it: absolute form, percent-encoding (repeated), backslashes,
 * repeated slashes, dot segments, letter case. Such a request without a token is answered 401, as
 * an unknown /api path always was, so that probing reveals nothing.
 */
export function looksLikeApiPath(target: string): boolean {
  let path = target.startsWith('/') ? target : pathOfAbsolute(target);
  path = path.split(/[?#]/, 1)[0]!;
  for (let i = 0; i < 4 && path.includes('%'); i++) {
    try {
      path = decodeURIComponent(path);
    } catch {
      break;
    }
  }
  path = path.replace(/\\/g, '/').replace(/\/{2,}/g, '/');
  path = new URL(path.startsWith('/') ? path : '/' + path, 'http://vigil.invalid').pathname.toLowerCase();
  return /^\/api(?:[/;]|$)/.test(path);
}

function pathOfAbsolute(target: string): string {
  try {
    return new URL(target).pathname;
  } catch {
    return target;
  }
}
