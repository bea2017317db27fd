/**
 * Threat feeds for tests: cbfeeds documents, served from a local HTTP server on the loopback
 * interface (never the network) or written to a file for file:// URLs.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface TestReport {
  id: string;
  title: string;
  link?: string;
  score?: number;
  timestamp?: number;
  description?: string;
  tags?: string[];
  iocs: Record<string, unknown>;
}

export function cbfeed(name: string, reports: readonly TestReport[], info: Record<string, unknown> = {}) {
  return {
    feedinfo: {
      name,
      display_name: `${name} feed`,
      provider_url: 'https://intel.example',
      summary: `Indicators from ${name}`,
      tech_data: 'There are no requirements to share any data to receive this feed.',
      provider_rating: 3,
      ...info,
    },
    reports: reports.map((report) => ({ link: `https://intel.example/${report.id}`, score: 50, timestamp: 1_700_000_000, ...report })),
  };
}

export interface FeedServer {
  url: string;
  /** What the next requests get: a document (as JSON) or raw text. */
  serve(body: unknown): void;
  /** Replaces the handler, for misbehaving servers. */
  handle(handler: (request: IncomingMessage, response: ServerResponse) => void): void;
  /** Back to serving the document. */
  reset(): void;
  requests: number;
  close(): Promise<void>;
}

export async function startFeedServer(): Promise<FeedServer> {
  let body = '';
  const serveBody = (_request: IncomingMessage, response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end(body);
  };
  let handler = serveBody;
  const state = { requests: 0 };
  const server = createServer((request, response) => {
    state.requests++;
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/feed.json`,
    serve(document) {
      body = typeof document === 'string' ? document : JSON.stringify(document);
      handler = serveBody;
    },
    reset() {
      handler = serveBody;
    },
    handle(next) {
      handler = next;
    },
    get requests() {
      return state.requests;
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** Writes the document to `<dir>/<name>` and returns its file:// URL. */
export function writeFeedFile(dir: string, name: string, document: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof document === 'string' ? document : JSON.stringify(document));
  return pathToFileURL(path).href;
}
