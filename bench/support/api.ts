/** A benchmark's JSON requests to a `vigil serve` it started, as its admin, timed. */
import { request } from 'node:https';
import { performance } from 'node:perf_hooks';
import type { VigilServer } from './vigil-server.js';

export interface ApiReply<T> {
  status: number;
  body: T;
  ms: number;
}

export function api<T = unknown>(server: Pick<VigilServer, 'url' | 'ca' | 'token'>, method: string, path: string, body?: unknown): Promise<ApiReply<T>> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server.url), {
      method, ca: server.ca, checkServerIdentity: () => undefined,
      headers: { 'x-auth-token': server.token, ...(payload ? { 'content-type': 'application/json' } : {}) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // A non-JSON answer (an error page) is returned as text for the caller to report.
        }
        resolve({ status: res.statusCode ?? 0, body: parsed as T, ms: performance.now() - started });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}
