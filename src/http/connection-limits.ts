/**
 * How long a connection may take over each phase, and how many may be open, so that idle or
 * trickling clients cannot hold every file descriptor (issue 17: 20,500 idle connections stopped
 * the server). Every limit is a setting (src/config/schema.ts).
 *
 * Uploads are bounded by a generous request timeout rather than a minimum transfer rate: a rate
 * measured on the socket also falls when the server itself stops reading (a body streamed to a
 * slow disk, an event loop busy with a commit), which would cut legitimate sensors off. The
 * ceiling still ends a body sent a byte at a time, the idle timeout ends one that stops, and the
 * per-address cap bounds how many such requests one client can hold meanwhile.
 */
import { readFileSync } from 'node:fs';
import type { Server, Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/schema.js';

type TimeoutSettings = Pick<Config,
  'tlsHandshakeTimeoutSeconds' | 'headersTimeoutSeconds' | 'keepAliveTimeoutSeconds' | 'idleTimeoutSeconds' | 'requestTimeoutSeconds'>;

type LimitSettings = Pick<Config, 'maxConnections' | 'maxConnectionsPerAddress'>;

export interface ServerTimeouts {
  /** Fastify's own options (connectionTimeout is the socket idle timeout). */
  fastify: { connectionTimeout: number; keepAliveTimeout: number; requestTimeout: number };
  /** node:http server options; also valid for node:https, which takes them alongside TLS's. */
  http: { headersTimeout: number; requestTimeout: number; keepAliveTimeout: number; connectionsCheckingInterval: number };
  /** node:tls server options. */
  tls: { handshakeTimeout: number };
}

export function serverTimeouts(settings: TimeoutSettings): ServerTimeouts {
  const ms = (seconds: number) => Math.round(seconds * 1000);
  const headersTimeout = ms(settings.headersTimeoutSeconds);
  const requestTimeout = Math.max(ms(settings.requestTimeoutSeconds), headersTimeout);
  const keepAliveTimeout = ms(settings.keepAliveTimeoutSeconds);
  return {
    fastify: { connectionTimeout: ms(settings.idleTimeoutSeconds), keepAliveTimeout, requestTimeout },
    // Node checks the header and request deadlines only at this interval (30 s unless told), so a
    // deadline could be overrun by that much; a quarter of the shorter one keeps the overrun small.
    http: { headersTimeout, requestTimeout, keepAliveTimeout, connectionsCheckingInterval: Math.min(5000, Math.max(100, headersTimeout / 4)) },
    tls: { handshakeTimeout: ms(settings.tlsHandshakeTimeoutSeconds) },
  };
}

/** Descriptors kept free for the database, its journal, worker threads, logs and feed downloads. */
const RESERVED_DESCRIPTORS = 256;

/**
 * Caps open connections in total (lowered to stay below the open-file limit) and per remote
 * address; a connection over either cap is closed as it arrives, before TLS or HTTP see a byte.
 */
export function limitConnections(server: Server, settings: LimitSettings, log: Pick<FastifyBaseLogger, 'warn'>, descriptors = openFileLimit()): void {
  let total = settings.maxConnections;
  if (descriptors !== undefined && total > descriptors - RESERVED_DESCRIPTORS) {
    total = Math.max(1, descriptors - RESERVED_DESCRIPTORS);
    log.warn({ maxConnections: settings.maxConnections, openFileLimit: descriptors, used: total },
      'maxConnections is above what the open-file limit allows; using less (raise the limit, e.g. ulimit -n)');
  }
  server.maxConnections = total;
  const warn = throttledWarning(log);
  server.on('drop', (data?: { remoteAddress?: string }) => warn({ remoteAddress: data?.remoteAddress, maxConnections: total }, 'connection refused: too many open connections'));

  const perAddress = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined) return void socket.destroy();
    const open = (perAddress.get(address) ?? 0) + 1;
    if (open > settings.maxConnectionsPerAddress) {
      warn({ remoteAddress: address, maxConnectionsPerAddress: settings.maxConnectionsPerAddress }, 'connection refused: too many open connections from one address');
      return void socket.destroy();
    }
    perAddress.set(address, open);
    socket.once('close', () => {
      const left = perAddress.get(address)! - 1;
      if (left === 0) perAddress.delete(address);
      else perAddress.set(address, left);
    });
  });
}

/** The soft limit on open files, where the system tells it (Linux); undefined elsewhere or when unlimited. */
export function openFileLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const soft = Number(line?.split(/\s{2,}/)[1]);
    return Number.isFinite(soft) ? soft : undefined;
  } catch {
    return undefined;
  }
}

/** A refused connection is logged at most once a minute: a flood must not become a log flood. */
function throttledWarning(log: Pick<FastifyBaseLogger, 'warn'>): (details: object, message: string) => void {
  let last = -Infinity;
  return (details, message) => {
    const now = Date.now();
    if (now - last < 60_000) return;
    last = now;
    log.warn(details, message);
  };
}
