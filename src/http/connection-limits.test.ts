/**
 * Idle and trickling clients cannot hold the server (issue 17). Real listening servers, HTTP and
 * HTTPS, with the timeouts set short; thousands of real sockets, from other loopback addresses
 * (127.0.0.2 and up) than the analyst's (127.0.0.1), so that the per-address cap can be told apart.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildApp } from '../app.js';
import { loadConfig } from '../config/load.js';
import { createContainer } from '../container.js';
import { as, startListeningTestApp, type ListeningTestApp } from '../../test/support/app.js';
import { registerSensor } from '../../test/support/sensors.js';
import { tempDir } from '../../test/support/temp.js';
import { limitConnections, serverTimeouts } from './connection-limits.js';
import { loadOrCreateCertificate } from './tls.js';

interface Client {
  socket: Socket;
  openedAt: number;
  /** Milliseconds from open to close, once closed. */
  closedAfter?: number;
}

const opened: Client[] = [];

/** Opens `count` connections from `localAddress`, in batches the listen backlog takes, sending nothing. */
async function openClients(port: number, localAddress: string, count: number): Promise<Client[]> {
  const clients: Client[] = [];
  for (let start = 0; start < count; start += 250) {
    await Promise.all(Array.from({ length: Math.min(250, count - start) }, () => new Promise<void>((resolve) => {
      const client: Client = { socket: connect({ host: '127.0.0.1', port, localAddress }), openedAt: Date.now() };
      client.socket.on('error', () => undefined);
      // Read what the server sends (a 408 before it closes), or its close would go unnoticed.
      client.socket.resume();
      client.socket.once('close', () => (client.closedAfter = Date.now() - client.openedAt));
      client.socket.once('connect', resolve);
      client.socket.once('close', () => resolve());
      clients.push(client);
      opened.push(client);
    })));
  }
  return clients;
}

/** Writes `prefix`, then one byte of `drip` every `everyMs` until the server closes the connection. */
function trickle(client: Client, prefix: string, drip: string, everyMs: number): void {
  client.socket.write(prefix);
  let i = 0;
  const timer = setInterval(() => {
    if (client.socket.destroyed) return clearInterval(timer);
    client.socket.write(drip[i++ % drip.length]!);
  }, everyMs);
  client.socket.once('close', () => clearInterval(timer));
}

async function allClosed(clients: readonly Client[], withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (clients.some((c) => c.closedAfter === undefined) && Date.now() < deadline) await sleep(100);
  const open = clients.filter((c) => c.closedAfter === undefined).length;
  assert.equal(open, 0, `${open} of ${clients.length} connections still open after ${withinMs} ms`);
}

const openCount = (clients: readonly Client[]) => clients.filter((c) => c.closedAfter === undefined).length;

async function timedInfo(url: string, token: string): Promise<number> {
  const started = Date.now();
  const response = await fetch(`${url}/api/info`, { headers: { ...as(token), connection: 'close' } });
  assert.equal(response.status, 200);
  await response.arrayBuffer();
  return Date.now() - started;
}

describe('connection timeouts and caps', () => {
  afterEach(() => {
    for (const client of opened.splice(0)) client.socket.destroy();
  });
  describe('on plain HTTP', () => {
    let test: ListeningTestApp;
    let port: number;
    before(async () => {
      test = await startListeningTestApp({
        headersTimeoutSeconds: 4, idleTimeoutSeconds: 5, requestTimeoutSeconds: 7, keepAliveTimeoutSeconds: 1,
        maxConnectionsPerAddress: 600, maxConnections: 4000,
      });
      port = Number(new URL(test.url).port);
    });
    after(() => test.close());

    it('closes silent, header-trickling, stalled and body-trickling connections while the API keeps answering', async () => {
      const sensor = await registerSensor(test);
      const silent = (await Promise.all(['127.0.0.2', '127.0.0.3', '127.0.0.4'].map((a) => openClients(port, a, 500)))).flat();
      const headerTricklers = await openClients(port, '127.0.0.5', 100);
      for (const c of headerTricklers) trickle(c, 'GET /api/info HTTP/1.1\r\nHost: vigil\r\nX-Slow: ', 'abcdefgh', 250);
      const upload = `POST /sensor/v1/events HTTP/1.1\r\nHost: vigil\r\nAuthorization: ${sensor.headers.authorization}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n';
      const stalledBodies = await openClients(port, '127.0.0.6', 100);
      for (const c of stalledBodies) c.socket.write(upload + '{"sequence": 1, "ev');
      const bodyTricklers = await openClients(port, '127.0.0.7', 100);
      for (const c of bodyTricklers) trickle(c, upload, ' ', 250);
      const all = [...silent, ...headerTricklers, ...stalledBodies, ...bodyTricklers];

      const held = openCount(all);
      const answeredIn = await timedInfo(test.url, test.adminToken);
      assert.ok(held >= 1500, `the connections are held when the API is asked (${held} of 1,800)`);
      assert.ok(answeredIn < 2000, `the API answers while ${held} connections are held (in ${answeredIn} ms)`);

      // Every timeout here is 7 s at most: without them these connections stay open for good. The
      // wait is longer only so that 1,800 sockets' closes are seen on a loaded machine (CI's once
      // saw 34 still open after 20 s while other test suites ran beside it).
      for (const [kind, clients] of Object.entries({ silent, headerTricklers, stalledBodies, bodyTricklers })) {
        await allClosed(clients, 30_000).catch((error: Error) => assert.fail(`${kind}: ${error.message}`));
      }
      const earliest = (clients: Client[]) => Math.min(...clients.map((c) => c.closedAfter!));
      assert.ok(earliest([...silent, ...headerTricklers]) >= 3000, `headers: first closed after ${earliest([...silent, ...headerTricklers])} ms`);
      assert.ok(earliest(stalledBodies) >= 4000, `stalled bodies, by the idle timeout: first after ${earliest(stalledBodies)} ms`);
      assert.ok(earliest(bodyTricklers) >= 6000, `trickled bodies, by the request timeout: first after ${earliest(bodyTricklers)} ms`);
      assert.ok(await timedInfo(test.url, test.adminToken) < 2000);
    });

    it('closes a kept-alive connection that stays idle after its request', async () => {
      const [client] = await openClients(port, '127.0.0.8', 1);
      client!.socket.write(`GET /api/info HTTP/1.1\r\nHost: vigil\r\nX-Auth-Token: ${test.adminToken}\r\n\r\n`);
      const answer = await new Promise<string>((resolve) => client!.socket.once('data', (data) => resolve(data.toString())));
      assert.match(answer, /^HTTP\/1\.1 200/);
      await allClosed([client!], 5000);
    });
  });

  describe('caps on open connections', () => {
    let test: ListeningTestApp;
    let port: number;
    before(async () => {
      test = await startListeningTestApp({ maxConnectionsPerAddress: 50, maxConnections: 300 });
      port = Number(new URL(test.url).port);
    });
    after(() => test.close());

    it('refuses connections over the per-address cap, serving other addresses', async () => {
      const flood = await openClients(port, '127.0.0.2', 120);
      await sleep(500);
      assert.equal(openCount(flood), 50);
      assert.ok(await timedInfo(test.url, test.adminToken) < 2000);
      for (const c of flood) c.socket.destroy();
    });

    it('refuses connections over the total cap', async () => {
      const addresses = Array.from({ length: 8 }, (_, i) => `127.0.1.${i + 1}`);
      const flood = (await Promise.all(addresses.map((a) => openClients(port, a, 50)))).flat();
      await sleep(500);
      const open = openCount(flood);
      assert.ok(open <= 300 && open >= 250, `${open} of 400 connections open`);
      for (const c of flood) c.socket.destroy();
    });
  });

  describe('on HTTPS', () => {
    let url: string;
    let port: number;
    let adminToken: string;
    let close: () => Promise<void>;
    before(async () => {
      const dataDir = tempDir();
      const config = loadConfig({ dataDir, logLevel: 'silent', tlsHandshakeTimeoutSeconds: 1.5, headersTimeoutSeconds: 2 });
      const container = await createContainer(config);
      const app = await buildApp(container, { tls: await loadOrCreateCertificate(dataDir, '127.0.0.1') });
      await app.listen({ host: '127.0.0.1', port: 0 });
      port = (app.server.address() as AddressInfo).port;
      url = `https://127.0.0.1:${port}`;
      adminToken = (await container.services.users.bootstrapAdmin())!;
      close = async () => {
        await app.close();
        await container.close();
        rmSync(dataDir, { recursive: true, force: true });
      };
    });
    after(() => close());

    it('closes connections that never start TLS while the API keeps answering', async () => {
      const silent = (await Promise.all(['127.0.0.2', '127.0.0.3'].map((a) => openClients(port, a, 400)))).flat();
      assert.equal(openCount(silent), 800);
      const started = Date.now();
      const status = await new Promise<number>((resolve, reject) => {
        httpsRequest(`${url}/api/info`, { headers: as(adminToken), rejectUnauthorized: false, agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        }).on('error', reject).end();
      });
      assert.equal(status, 200);
      assert.ok(Date.now() - started < 2000, 'the API answers while 800 connections wait for a handshake');
      await allClosed(silent, 10_000);
      assert.ok(Math.min(...silent.map((c) => c.closedAfter!)) >= 1000, 'closed by the handshake timeout, not at once');
    });

    it('closes connections that complete TLS and then send nothing', async () => {
      const started = Date.now();
      const closedAfter = await Promise.all(Array.from({ length: 100 }, () => new Promise<number>((resolve) => {
        const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false });
        socket.on('error', () => undefined);
        socket.resume();
        socket.once('close', () => resolve(Date.now() - started));
        setTimeout(() => socket.destroy(), 10_000).unref();
      })));
      assert.ok(Math.max(...closedAfter) < 10_000, 'every one closed by the header timeout');
      assert.ok(Math.min(...closedAfter) >= 1500, `not at once (first after ${Math.min(...closedAfter)} ms)`);
    });
  });

  describe('settings', () => {
    it('come from VIGIL_* variables, in seconds, fractions allowed', () => {
      const config = loadConfig({}, { VIGIL_HEADERS_TIMEOUT_SECONDS: '0.5', VIGIL_MAX_CONNECTIONS_PER_ADDRESS: '20' });
      assert.equal(serverTimeouts(config).http.headersTimeout, 500);
      assert.equal(config.maxConnectionsPerAddress, 20);
    });

    it('by default hold 10,000 sensors\' kept-alive connections beside the check-ins between them', () => {
      const config = loadConfig({}, {});
      assert.ok(config.keepAliveTimeoutSeconds > 2 * 30, 'a sensor keeps its connection from one check-in to the next');
      assert.ok(config.maxConnections >= 10_000 * 1.5, `maxConnections ${config.maxConnections}`);
    });

    it('keep the total below the open-file limit', () => {
      const server = createServer();
      const quiet = { warn: () => undefined };
      limitConnections(server, { maxConnections: 8192, maxConnectionsPerAddress: 10 }, quiet, 1024);
      assert.equal(server.maxConnections, 1024 - 256);
      limitConnections(server, { maxConnections: 500, maxConnectionsPerAddress: 10 }, quiet, 1024);
      assert.equal(server.maxConnections, 500);
    });
  });
});
