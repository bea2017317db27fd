/**
 * The HTTP output against a real receiver on loopback: a large batch of HEC events travels in
 * several gzip-compressed requests, a few at a time, and arrives whole.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { after, before, it } from 'node:test';
import { HttpOutput } from './http-output.js';

let server: http.Server;
let url: string;
const received: Record<string, unknown>[] = [];
let inFlight = 0;
let mostInFlight = 0;
let requests = 0;

before(async () => {
  server = http.createServer((req, res) => {
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests++;
      assert.equal(req.headers['content-encoding'], 'gzip');
      for (const line of gunzipSync(Buffer.concat(chunks)).toString('utf8').split('\n')) {
        received.push((JSON.parse(line) as { event: Record<string, unknown> }).event);
      }
      // Answering a little later lets the next requests arrive meanwhile, as a busy receiver does.
      setTimeout(() => {
        inFlight--;
        res.writeHead(200).end('{"text":"Success","code":0}');
      }, 20);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/services/collector/event`;
});

after(() => server.close());

it('sends a large HEC batch as several gzip-compressed requests, a few in flight, every record once', async () => {
  const output = new HttpOutput({ url, splunkToken: 'token', timeoutMs: 5000 }, 'json');
  const records = Array.from({ length: 8000 }, (_, i) => ({ type: 'ingress.event.filemod', timestamp: 1_795_168_800 + i, seq: i, path: 'C:\\x'.repeat(100) }));
  try {
    await output.send(records);
  } finally {
    await output.close();
  }
  assert.ok(requests >= 4, `${requests} requests for about 3.5 MB of envelopes`);
  assert.ok(mostInFlight > 1 && mostInFlight <= 8, `${mostInFlight} requests in flight at most`);
  assert.deepEqual(received.map((event) => event.seq).sort((a, b) => Number(a) - Number(b)), records.map((record) => record.seq));
});

it('ends a failed batch only when none of its requests is left, so that the batch sent again reuses no body in flight', async () => {
  let arrived = 0;
  let arrivedAfterFailure = 0;
  let failedAt: number | undefined;
  const failing = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrived++;
      if (failedAt !== undefined) arrivedAfterFailure++;
      // The first request fails at once; the others take a while, as a busy receiver's do.
      if (arrived === 1) res.writeHead(500).end('busy');
      else setTimeout(() => res.writeHead(200).end('{"text":"Success","code":0}'), 50);
    });
  });
  await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
  const output = new HttpOutput({ url: `http://127.0.0.1:${(failing.address() as AddressInfo).port}/services/collector/event`, splunkToken: 'token', timeoutMs: 5000 }, 'json');
  const records = Array.from({ length: 40_000 }, (_, i) => ({ type: 'ingress.event.filemod', timestamp: 1_795_168_800 + i, seq: i, path: 'C:\\x'.repeat(100) }));
  try {
    await assert.rejects(output.send(records), /answered 500/);
    failedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 300));
  } finally {
    await output.close();
    failing.close();
  }
  assert.equal(arrivedAfterFailure, 0, 'no request of the failed batch went on after it failed');
  assert.ok(arrived < 16, `${arrived} requests: the batch stopped taking new bodies at its first failure`);
});
