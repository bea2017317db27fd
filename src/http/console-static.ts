/**
 * The analyst console (web/, issue 20) served at `/` on the API's origin, from the assets that
 * `npm run build` puts in web/dist (docs/adr/0025-console-build-and-serving.md).
 *
 * Asset names carry a content hash, so they are cached for a year; index.html names the current
 * ones, so it is never cached. Every console response carries a strict Content-Security-Policy:
 * scripts and styles only from files of this origin, no inline script, no eval, and requests only
 * to this origin, so a value from the data that slipped into markup still could not run or call out.
 */
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { declareScopePolicy } from './route-policy.js';

/** web/dist of this checkout or package: src/http and dist/http both sit two levels below the root. */
export const BUILT_CONSOLE_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));

export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** True when `dir` holds a built console. */
export function consoleBuilt(dir: string): boolean {
  return existsSync(join(dir, 'index.html'));
}

export async function registerConsole(app: FastifyInstance, dir: string): Promise<void> {
  await app.register(async (scope) => {
    // The page and its assets are public: every call they make to /api needs a login.
    declareScopePolicy(scope, 'public');
    await scope.register(fastifyStatic, {
      root: dir,
      prefix: '/',
      index: ['index.html'],
      wildcard: false,
      cacheControl: false,
      setHeaders(res, path) {
        res.setHeader('content-security-policy', CONSOLE_CSP);
        res.setHeader('x-content-type-options', 'nosniff');
        res.setHeader('referrer-policy', 'no-referrer');
        res.setHeader('cache-control', path.endsWith('index.html') ? 'no-cache' : IMMUTABLE);
      },
    });
  });
}
