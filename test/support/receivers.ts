/**
 * Real receivers of notifications, started by tests on loopback ports: an SMTP server
 * (smtp-server, with optional authentication and TLS), syslog listeners over UDP, TCP and TLS,
 * and an HTTP(S) receiver that checks the HMAC signature. Each keeps what it received.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { SMTPServer } from 'smtp-server';
import { loadOrCreateCertificate } from '../../src/http/tls.js';
import { tempDir } from './temp.js';

export interface SelfSigned {
  key: string;
  cert: string;
  /** The certificate in a file, for notificationCaFile. */
  caFile: string;
}

/** A self-signed certificate for 127.0.0.1 and localhost. */
export async function selfSigned(): Promise<SelfSigned> {
  const dir = tempDir();
  const { key, cert } = await loadOrCreateCertificate(dir, '127.0.0.1');
  const caFile = join(dir, 'receiver-ca.pem');
  writeFileSync(caFile, cert);
  return { key, cert, caFile };
}

export interface Closable {
  port: number;
  close(): Promise<void>;
}

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/** An SMTP server: `secure` speaks TLS from the start, otherwise it offers STARTTLS when given a certificate. */
export async function startSmtp(options: { tls?: SelfSigned; secure?: boolean; user?: string; password?: string }): Promise<Closable & { mails: ReceivedMail[] }> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    secure: options.secure ?? false,
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : { disabledCommands: ['STARTTLS'] }),
    authOptional: options.user === undefined,
    allowInsecureAuth: false,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === options.user && auth.password === options.password) callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A received mail's headers (unfolded, encoded words decoded) and body (quoted-printable decoded), as one text. */
export function mailText(raw: string): string {
  const [head = '', ...body] = raw.split('\r\n\r\n');
  const headers = head.replace(/\r\n[ \t]+/g, ' ').replace(/=\?UTF-8\?Q\?([^?]*)\?=\s*/gi, (_, text: string) => qp(text.replace(/_/g, ' ')));
  return `${headers}\r\n\r\n${qp(body.join('\r\n\r\n').replace(/=\r\n/g, ''))}`;
}

function qp(text: string): string {
  return decodeURIComponent(text.replace(/%/g, '%25').replace(/=([0-9A-F]{2})/gi, '%$1'));
}

/** A syslog listener: UDP datagrams, or TCP/TLS streams split into messages (octet counting or newlines). */
export async function startSyslog(transport: 'udp' | 'tcp' | 'tls', tls?: SelfSigned): Promise<Closable & { messages: string[] }> {
  const messages: string[] = [];
  if (transport === 'udp') {
    const socket = createSocket('udp4');
    socket.on('message', (message) => messages.push(message.toString('utf8')));
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    return { port: socket.address().port, messages, close: () => new Promise<void>((resolve) => socket.close(() => resolve())) };
  }
  const onConnection = (socket: Socket) => {
    let buffered = '';
    socket.on('data', (data: Buffer) => {
      buffered += data.toString('utf8');
      for (;;) {
        const counted = /^(\d+) /.exec(buffered);
        if (counted) {
          const length = Number(counted[1]);
          const start = counted[0].length;
          if (Buffer.byteLength(buffered.slice(start)) < length) return;
          messages.push(buffered.slice(start, start + length));
          buffered = buffered.slice(start + length);
          continue;
        }
        const newline = buffered.indexOf('\n');
        if (newline < 0) return;
        messages.push(buffered.slice(0, newline));
        buffered = buffered.slice(newline + 1);
      }
    });
    socket.on('error', () => undefined);
  };
  const server: Server = transport === 'tls' ? createTlsServer({ key: tls!.key, cert: tls!.cert }, onConnection) : createTcpServer(onConnection);
  server.on('tlsClientError', () => undefined);
  return listening(server, { messages });
}

export interface ReceivedPost {
  id: string;
  body: string;
  signatureValid: boolean;
}

export type WebhookMode = 'ok' | 'error' | 'hang';

/** An HTTP(S) receiver of webhook posts that checks X-Vigil-Signature against `secret`; its answer follows `mode`. */
export async function startWebhook(options: { secret: string; tls?: SelfSigned; port?: number }): Promise<Closable & {
  posts: ReceivedPost[];
  mode: WebhookMode;
  /** Requests received, answered or not. */
  requests: number;
}> {
  const state = { posts: [] as ReceivedPost[], mode: 'ok' as WebhookMode, requests: 0 };
  const hung: ServerResponse[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      state.requests++;
      if (state.mode === 'hang') {
        hung.push(res);
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      const expected = Buffer.from(`sha256=${createHmac('sha256', options.secret).update(body).digest('hex')}`);
      const given = Buffer.from(String(req.headers['x-vigil-signature'] ?? ''));
      const signatureValid = given.length === expected.length && timingSafeEqual(given, expected);
      if (state.mode === 'error') {
        res.writeHead(503).end('busy');
        return;
      }
      state.posts.push({ id: String(req.headers['x-vigil-notification-id'] ?? ''), body, signatureValid });
      res.writeHead(signatureValid ? 204 : 401).end();
    });
  };
  const server = options.tls ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, handler) : createHttpServer(handler);
  const receiver = await listening(server, {}, options.port);
  return Object.assign(state, {
    port: receiver.port,
    close: async () => {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await receiver.close();
    },
  });
}

async function listening<T extends object>(server: Server, extra: T, port = 0): Promise<Closable & T> {
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return Object.assign(extra, { port: bound, close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
}

/** Resolves once `check` holds, polling; rejects after `timeoutMs` naming `what`. */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
