/**
 * The sensor side of the Vigil sensor protocol (docs/sensor-protocol.md) over HTTPS, or plain HTTP
 * when the server URL says so. One client speaks for one sensor; clients may share an Agent.
 *
 * Event batches are the protocol's one delivery guarantee: a batch is retried, with the same
 * sequence and the same bytes, on network errors and 5xx until the server acknowledges it, and a
 * client never has two batches in flight.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import type { EventsReply, SensorEvent } from '../ingest/event.schemas.js';
import type { BinaryMetadata } from '../modules/binaries/binary-upload.schemas.js';
import type {
  CheckinBody, CheckinReply, RegisterBody, RegisterReply,
} from '../modules/sensors/sensor-protocol.schemas.js';

export interface RetryPolicy {
  /** First wait after a failure; it doubles up to maxDelayMs. */
  initialDelayMs: number;
  maxDelayMs: number;
  /** Stop retrying (and throw) once failures have lasted this long. */
  giveUpAfterMs: number;
}

export interface SensorClientOptions {
  /** Base URL of the server, `https://host:port` (or `http://` behind a TLS-terminating proxy). */
  server: string;
  /** Share one keep-alive Agent among many clients; by default each client makes its own. */
  agent?: HttpAgent | undefined;
  /**
   * The Agent for registration and check-ins, when they should not share `agent`'s connections:
   * a sensor whose uploads hold its connection still checks in at once, over a connection of its own.
   */
  checkinAgent?: HttpAgent | undefined;
  /** Verify the server's certificate. Default: only when `ca` is given, as Vigil serves a self-signed one. */
  rejectUnauthorized?: boolean | undefined;
  /** PEM of the CA (or the self-signed certificate) to verify the server against. */
  ca?: string | undefined;
  /** Gzip event batches (level 1). Default true. */
  gzip?: boolean | undefined;
  retry?: Partial<RetryPolicy> | undefined;
  /** Milliseconds to wait for a reply before treating the attempt as a network error. */
  timeoutMs?: number | undefined;
}

export interface SensorCredentials {
  sensorId: number;
  secret: string;
}

/** A request the server refused (status ≥ 400) or that never got a reply (status 0: network error, timeout, given up). */
export class SensorRequestError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    /** The server's Retry-After, when it sent one (with 503: busy, nothing done). */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'SensorRequestError';
  }
}

interface Reply {
  status: number;
  body: Buffer;
  retryAfterMs: number | undefined;
}

/** What goes over `checkinAgent`: the sensor's control exchanges, never its uploads. */
const CHECKIN_PATHS = new Set(['/sensor/v1/register', '/sensor/v1/checkin']);

const DEFAULT_RETRY: RetryPolicy = { initialDelayMs: 100, maxDelayMs: 5_000, giveUpAfterMs: 120_000 };

/** A keep-alive Agent for the server's scheme, with the TLS options given. */
export function createAgent(
  server: string, tls: { rejectUnauthorized?: boolean | undefined; ca?: string | undefined } = {}, maxSockets = Infinity,
): HttpAgent {
  if (new URL(server).protocol === 'http:') return new HttpAgent({ keepAlive: true, maxSockets });
  return new HttpsAgent({ keepAlive: true, maxSockets, rejectUnauthorized: tls.rejectUnauthorized ?? tls.ca !== undefined, ca: tls.ca });
}

/** The install code of a sensor group, read by an administrator of the group with an API token. */
export async function fetchInstallCode(
  options: Pick<SensorClientOptions, 'server' | 'agent' | 'rejectUnauthorized' | 'ca'>,
  apiToken: string,
  groupId: number,
): Promise<string> {
  return new SensorClient(options).installCode(apiToken, groupId);
}

export class SensorClient {
  credentials: SensorCredentials | undefined;
  /** Attempts beyond the first, across every call of this client. */
  retries = 0;

  private readonly base: URL;
  private readonly agent: HttpAgent;
  private readonly checkinAgent: HttpAgent;
  private readonly send: typeof httpRequest;
  private readonly retry: RetryPolicy;
  private readonly gzip: boolean;
  private readonly timeoutMs: number;
  private batchInFlight: Promise<unknown> = Promise.resolve();

  constructor(options: SensorClientOptions) {
    this.base = new URL(options.server);
    if (this.base.protocol !== 'https:' && this.base.protocol !== 'http:') throw new Error(`server must be an https:// or http:// URL, not ${options.server}`);
    this.agent = options.agent ?? createAgent(options.server, options);
    this.checkinAgent = options.checkinAgent ?? this.agent;
    this.send = this.base.protocol === 'https:' ? httpsRequest : httpRequest;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.gzip = options.gzip ?? true;
    this.timeoutMs = options.timeoutMs ?? 60_000;
  }

  /** The group's install code, read with an API token (retried: reading twice is harmless). */
  async installCode(apiToken: string, groupId: number): Promise<string> {
    const reply = await this.withRetry('GET', `/api/v1/group/${groupId}/install_code`, { 'X-Auth-Token': apiToken });
    return (reply as { install_code: string }).install_code;
  }

  /**
   * Registers a new sensor with the group's install code; later calls authenticate as it. Retried
   * only on 503, where the server says it did nothing: after a network error or another 5xx the
   * sensor may have been registered, and registering again would leave a second one behind.
   */
  async register(installCode: string, facts: Omit<RegisterBody, 'install_code'>): Promise<RegisterReply> {
    const body = json({ ...facts, install_code: installCode });
    const reply = (await this.withRetry('POST', '/sensor/v1/register', {}, body, isServerBusy)) as RegisterReply;
    this.credentials = { sensorId: reply.sensor_id, secret: reply.sensor_secret };
    return reply;
  }

  /** One check-in; not retried here, as the next one repeats it (Checkins sends it sooner after a 503). */
  async checkin(body: CheckinBody): Promise<CheckinReply> {
    return (await this.call('POST', '/sensor/v1/checkin', this.auth(), json(body))) as CheckinReply;
  }

  /**
   * Uploads one batch and resolves with the server's acknowledgement, retrying the same bytes
   * until it comes. Calls queue behind the batch in flight, so sequences arrive in call order.
   */
  uploadEvents(sequence: number, events: readonly SensorEvent[]): Promise<EventsReply> {
    const upload = this.batchInFlight.then(() => this.sendBatch(sequence, events));
    this.batchInFlight = upload.catch(() => undefined);
    return upload;
  }

  /** Stores a binary's content with its metadata (retried, as storing twice is harmless, until it is stored or `givenUp()`). */
  async uploadBinary(metadata: BinaryMetadata, content: Buffer, givenUp?: () => boolean): Promise<{ md5: string; stored: boolean }> {
    const body = json({ metadata, content: content.toString('base64') });
    return (await this.withRetry('POST', '/sensor/v1/binaries', this.auth(), body, isTransient, givenUp)) as { md5: string; stored: boolean };
  }

  /** Uploads what a live-response get file command fetched, before the command is acknowledged (retried: storing twice is harmless). */
  async uploadLiveResponseFile(fileId: number, content: Buffer): Promise<void> {
    await this.withRetry('PUT', `/sensor/v1/live-response/files/${fileId}`, { ...this.auth(), 'content-type': 'application/octet-stream' }, content);
  }

  /** Downloads what a live-response put file command sends. */
  async downloadLiveResponseFile(fileId: number): Promise<Buffer> {
    return (await this.request('GET', `/sensor/v1/live-response/files/${fileId}`, this.auth())).body;
  }

  private async sendBatch(sequence: number, events: readonly SensorEvent[]): Promise<EventsReply> {
    const text = Buffer.from(JSON.stringify({ sequence, events }));
    const headers = this.auth();
    if (!this.gzip) return (await this.withRetry('POST', '/sensor/v1/events', headers, text)) as EventsReply;
    headers['content-encoding'] = 'gzip';
    // In one call on this thread: a batch compresses in a millisecond or two, and the thread
    // pool's round trips cost a quarter more CPU than the compression itself.
    return (await this.withRetry('POST', '/sensor/v1/events', headers, gzipSync(text, { level: 1 }))) as EventsReply;
  }

  private async withRetry(
    method: string, path: string, headers: Record<string, string>, body?: Buffer, retried: (status: number) => boolean = isTransient,
    givenUp: () => boolean = () => false,
  ): Promise<unknown> {
    let delay = this.retry.initialDelayMs;
    let failingSince: number | undefined;
    for (;;) {
      try {
        return await this.call(method, path, headers, body);
      } catch (error) {
        if (!(error instanceof SensorRequestError) || !retried(error.status) || givenUp()) throw error;
        failingSince ??= Date.now();
        if (Date.now() - failingSince >= this.retry.giveUpAfterMs) {
          throw new SensorRequestError(0, 'unreachable', `${method} ${path}: gave up after ${this.retry.giveUpAfterMs} ms: ${(error as Error).message}`);
        }
        // Spread out, so that sensors told the same Retry-After do not all come back at once.
        await sleep(Math.min(error.retryAfterMs ?? 0, this.retry.maxDelayMs) + delay / 2 + Math.random() * delay);
        if (givenUp()) throw error;
        delay = Math.min(delay * 2, this.retry.maxDelayMs);
        this.retries++;
      }
    }
  }

  /** One request, not retried: resolves with the parsed JSON reply of a 2xx, throws SensorRequestError otherwise. */
  async call(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<unknown> {
    const reply = await this.request(method, path, headers, body);
    return reply.body.length === 0 ? undefined : JSON.parse(reply.body.toString('utf8'));
  }

  /** One request, not retried: resolves with a 2xx reply as it came, throws SensorRequestError otherwise. */
  private async request(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<Reply> {
    const reply = await this.exchange(method, path, headers, body).catch((error: NodeJS.ErrnoException) => {
      throw new SensorRequestError(0, error.code ?? 'network_error', `${method} ${new URL(path, this.base).href}: ${error.message}`);
    });
    if (reply.status >= 200 && reply.status < 300) return reply;
    const reason = reasonOf(reply);
    throw new SensorRequestError(reply.status, reason, `${method} ${path}: ${reply.status} ${reason}`, reply.retryAfterMs);
  }

  private exchange(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const request = this.send(new URL(path, this.base), {
        method, agent: CHECKIN_PATHS.has(path) ? this.checkinAgent : this.agent, timeout: this.timeoutMs,
        headers: body ? { 'content-type': 'application/json', ...headers, 'content-length': String(body.length) } : headers,
      }, (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({
          status: response.statusCode ?? 0, body: Buffer.concat(chunks), retryAfterMs: retryAfterMsOf(response.headers['retry-after']),
        }));
        response.on('error', reject);
      });
      request.on('timeout', () => request.destroy(new Error(`no reply within ${this.timeoutMs} ms`)));
      request.on('error', reject);
      request.end(body);
    });
  }

  private auth(): Record<string, string> {
    if (!this.credentials) throw new Error('the sensor is not registered');
    return { authorization: `Sensor ${this.credentials.sensorId}:${this.credentials.secret}` };
  }
}

/** Network errors (status 0), overload and server errors may pass; other refusals will not. */
function isTransient(status: number): boolean {
  return status === 0 || status === 408 || status === 429 || status >= 500;
}

/** The server was too busy to do anything with the request (its database's write lock stayed taken). */
export function isServerBusy(status: number): boolean {
  return status === 503;
}

/** Retry-After in seconds; the HTTP-date form is not sent by Vigil. */
function retryAfterMsOf(header: string | undefined): number | undefined {
  const seconds = header === undefined ? NaN : Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

function json(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}

/** The `reason` of a JSON error body; the status text for Werkzeug-style HTML pages. */
function reasonOf(reply: Reply): string {
  const text = reply.body.toString('utf8');
  try {
    const parsed = JSON.parse(text) as { reason?: unknown };
    if (typeof parsed.reason === 'string') return parsed.reason;
  } catch {
    // not JSON: fall through to the title
  }
  return /<title>([^<]*)<\/title>/.exec(text)?.[1] ?? (text.slice(0, 200) || 'no body');
}
