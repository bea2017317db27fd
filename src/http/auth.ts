/**
 * Authentication for every /api route: the X-Auth-Token header must carry a user's API token
 * (reference core §2). Runs before routing decides anything, so an unknown /api path without a
 * token is a 401 too and reveals nothing.
 */
import type { FastifyInstance } from 'fastify';
import type { Principal } from '../domain/permissions.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set for every /api request that got past authentication. */
    principal: Principal;
  }
}

export interface Authenticator {
  authenticate(token: string | undefined): Promise<Principal>;
}

export function isApiPath(url: string): boolean {
  return url === '/api' || url.startsWith('/api/') || url.startsWith('/api?');
}

export function registerAuthentication(app: FastifyInstance, authenticator: Authenticator): void {
  app.decorateRequest('principal', undefined as unknown as Principal);
  app.addHook('onRequest', async (request) => {
    if (!isApiPath(request.url)) return;
    const header = request.headers['x-auth-token'];
    request.principal = await authenticator.authenticate(typeof header === 'string' ? header.trim() : undefined);
  });
}
