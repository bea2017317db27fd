/**
 * Receivers the forwarder tests deliver to, on loopback: an HTTP(S) receiver that acts as a Splunk
 * HTTP Event Collector (checks the token, splits the HEC envelopes) and can be told to fail, and
 * a TCP or TLS syslog listener that keeps the lines it reads.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { loadOrCreateCertificate, type TlsMaterial } from '../../src/http/tls.js';
import { tempDir } from './temp.js';

export async function testCertificate(): Promise<TlsMaterial> {
  const { key, cert } = await loadOrCreateCertificate(tempDir('vigil-receiver-tls-'), '127.0.0.1');
  return { key, cert };
}

export interface HecReceiver {
  url: string;
  /** The events received, in order, each HEC envelope's `event`. */
  events: Record<string, unknown>[];
  /** The HEC envelopes themselves. */
  envelopes: Record<string, unknown>[];
  /** Status to answer instead of 200 (e.g. 503 while "down"); undefined: accept. */
  failWith: number | undefined;
  requests: number;
  /** Each accepted request's Content-Encoding (HEC inflates gzip). */
  encodings: (string | undefined)[];
  close(): Promise<void>;
}

/** A Splunk HEC: POST bodies of concatenated envelopes, `Authorization: Splunk <token>` required. */
export async function startHecReceiver(token: string, tlsMaterial?: TlsMaterial): Promise<HecReceiver> {
  const receiver: HecReceiver = { url: '', events: [], envelopes: [], failWith: undefined, requests: 0, encodings: [], close: async () => undefined };
  const handler: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      receiver.requests++;
      if (req.headers.authorization !== `Splunk ${token}`) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"text":"Invalid token","code":4}');
        return;
      }
      if (receiver.failWith !== undefined) {
        res.writeHead(receiver.failWith, { 'content-type': 'application/json' }).end('{"text":"Server is busy","code":9}');
        return;
      }
      const body = Buffer.concat(chunks);
      const encoding = req.headers['content-encoding'];
      receiver.encodings.push(encoding);
      const text = (encoding === 'gzip' ? gunzipSync(body) : body).toString('utf8');
      for (const line of text.split('\n').filter((l) => l.trim() !== '')) {
        const envelope = JSON.parse(line) as Record<string, unknown>;
        receiver.envelopes.push(envelope);
        receiver.events.push(envelope.event as Record<string, unknown>);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"text":"Success","code":0}');
    });
  };
  const server = tlsMaterial ? https.createServer(tlsMaterial, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `${tlsMaterial ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}/services/collector/event`;
  receiver.close = () => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return receiver;
}

export interface SyslogListener {
  url: string;
  lines: string[];
  close(): Promise<void>;
}

/** A syslog listener over TCP, or TLS with `tlsMaterial`, newline-framed. */
export async function startSyslogListener(tlsMaterial?: TlsMaterial, port = 0): Promise<SyslogListener> {
  const lines: string[] = [];
  const sockets = new Set<net.Socket>();
  const onSocket = (socket: net.Socket) => {
    sockets.add(socket);
    let rest = '';
    socket.on('data', (data: Buffer) => {
      const parts = (rest + data.toString('utf8')).split('\n');
      rest = parts.pop()!;
      lines.push(...parts);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  };
  const server = tlsMaterial ? tls.createServer(tlsMaterial, onSocket) : net.createServer(onSocket);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `${tlsMaterial ? 'tls' : 'tcp'}://127.0.0.1:${bound}`,
    lines,
    close: () => new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

/** Resolves once `check` holds, polling; fails with `what` after `timeoutMs`. */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
