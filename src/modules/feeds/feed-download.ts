/**
 * Downloads a feed from its feed_url: http, https (optionally without certificate checks, with
 * basic auth or a client certificate, as the feed record says) or file. Every download is
 * bounded: one deadline for the whole transfer, redirects included, and a byte limit on what is
 * read, after decompression. Failures are FeedDownloadErrors saying which kind.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

export type DownloadFailure = 'unreachable' | 'timeout' | 'too_large';

export class FeedDownloadError extends Error {
  constructor(readonly failure: DownloadFailure, message: string) {
    super(message);
    this.name = 'FeedDownloadError';
  }
}

export interface DownloadOptions {
  maxBytes: number;
  timeoutMs: number;
  /** false: accept any server certificate (feeds on self-signed hosts). */
  validateServerCert: boolean;
  username?: string | null | undefined;
  password?: string | null | undefined;
  clientCert?: string | null | undefined;
  clientKey?: string | null | undefined;
}

export const FEED_URL_SCHEMES = ['http:', 'https:', 'file:'];
const MAX_REDIRECTS = 5;

export async function downloadFeed(url: string, options: DownloadOptions): Promise<Buffer> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  try {
    return await fetchUrl(new URL(url), options, deadline, 0);
  } catch (error) {
    if (deadline.aborted) throw new FeedDownloadError('timeout', `The feed at ${url} did not arrive within ${options.timeoutMs / 1000} s`);
    if (error instanceof FeedDownloadError) throw error;
    throw new FeedDownloadError('unreachable', `Cannot read the feed at ${url}: ${(error as Error).message}`);
  }
}

async function fetchUrl(url: URL, options: DownloadOptions, deadline: AbortSignal, redirects: number): Promise<Buffer> {
  if (url.protocol === 'file:') return readFile(url, options.maxBytes, deadline);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FeedDownloadError('unreachable', `Feeds are read over http, https or file, not ${url.protocol}`);
  }
  const response = await request(url, options, deadline);
  const status = response.statusCode ?? 0;
  if (status >= 300 && status < 400 && response.headers.location) {
    response.resume();
    if (redirects >= MAX_REDIRECTS) throw new FeedDownloadError('unreachable', `More than ${MAX_REDIRECTS} redirects from ${url.href}`);
    return fetchUrl(new URL(response.headers.location, url), options, deadline, redirects + 1);
  }
  if (status < 200 || status >= 300) {
    response.resume();
    throw new FeedDownloadError('unreachable', `The feed server answered ${status} for ${url.href}`);
  }
  const length = Number(response.headers['content-length']);
  if (!response.headers['content-encoding'] && length > options.maxBytes) {
    response.destroy();
    throw tooLarge(options.maxBytes);
  }
  return readAll(decoded(response), options.maxBytes, deadline);
}

function request(url: URL, options: DownloadOptions, signal: AbortSignal): Promise<IncomingMessage> {
  const auth = options.username ? `${options.username}:${options.password ?? ''}` : undefined;
  const common = { signal, headers: { 'accept-encoding': 'gzip, deflate, br', accept: 'application/json' }, ...(auth ? { auth } : {}) };
  return new Promise((resolve, reject) => {
    const outgoing = url.protocol === 'https:'
      ? https.get(url, {
        ...common,
        rejectUnauthorized: options.validateServerCert,
        ...(options.clientCert ? { cert: options.clientCert } : {}),
        ...(options.clientKey ? { key: options.clientKey } : {}),
      }, resolve)
      : http.get(url, common, resolve);
    outgoing.on('error', reject);
  });
}

function decoded(response: IncomingMessage): Readable {
  switch (response.headers['content-encoding']) {
    case 'gzip':
      return response.pipe(createGunzip());
    case 'deflate':
      return response.pipe(createInflate());
    case 'br':
      return response.pipe(createBrotliDecompress());
    default:
      return response;
  }
}

async function readFile(url: URL, maxBytes: number, deadline: AbortSignal): Promise<Buffer> {
  const path = fileURLToPath(url);
  const info = await stat(path);
  if (!info.isFile()) throw new FeedDownloadError('unreachable', `${path} is not a file`);
  if (info.size > maxBytes) throw tooLarge(maxBytes);
  return readAll(createReadStream(path), maxBytes, deadline);
}

async function readAll(stream: Readable, maxBytes: number, deadline: AbortSignal): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  const abort = () => stream.destroy(new Error('aborted'));
  deadline.addEventListener('abort', abort, { once: true });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > maxBytes) {
        stream.destroy();
        throw tooLarge(maxBytes);
      }
      chunks.push(chunk);
    }
  } finally {
    deadline.removeEventListener('abort', abort);
  }
  return Buffer.concat(chunks);
}

function tooLarge(maxBytes: number): FeedDownloadError {
  return new FeedDownloadError('too_large', `The feed is larger than the ${maxBytes} bytes a download may bring`);
}
