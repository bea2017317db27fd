/**
 * A request that arrives before the last answer on its connection has drained is read whole and
 * answered, never cut off (paused-parsers.ts). A real HTTPS server; the client
 * sends a request with a large answer (the OpenAPI document) and, behind it on the same
 * connection, a `_bulk` body of 900 KB, and reads nothing for a second, so that the first answer
 * cannot drain while the body arrives. Node 20's server left to itself closed the connection
 * mid-body, after the first answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { as, startListeningTestApp, type ListeningTestApp } from '../../test/support/app.js';
import { tempDir } from '../../test/support/temp.js';
import { loadOrCreateCertificate } from './tls.js';

async function open(url: string): Promise<TLSSocket> {
  const { hostname, port } = new URL(url);
  const socket = tlsConnect({ host: hostname, port: Number(port), rejectUnauthorized: false });
  await new Promise((resolve) => socket.once('secureConnect', resolve));
  return socket;
}

describe('a request behind an answer still draining', () => {
  let test: ListeningTestApp;
  before(async () => {
    const tls = await loadOrCreateCertificate(tempDir('vigil-paused-parsers-'), '127.0.0.1');
    test = await startListeningTestApp({ eventUploadLimitBytes: 8 * 1024 * 1024 }, { tls });
  });
  after(async () => test.close());

  it('is read whole and answered on the same connection', async () => {
    const key = (await test.app.inject({ method: 'POST', url: '/api/v1/group/1/ingest_key', headers: as(test.adminToken), payload: { name: 'shipper' } })).json();
    const body = Buffer.from('{"create":{}}\n{"message":"not a Sysmon event"}\n'.repeat(20_000));
    const socket = await open(test.url);
    socket.pause();
    socket.write('GET /openapi.json HTTP/1.1\r\nhost: vigil\r\n\r\n');
    socket.write(`POST /ingest/elastic/_bulk HTTP/1.1\r\nhost: vigil\r\nauthorization: Bearer ${key.key as string}\r\n` +
      `content-type: application/x-ndjson\r\ncontent-length: ${body.length}\r\n\r\n`);
    socket.write(body);
    await sleep(1000);

    let received = '';
    let closed = false;
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('close', () => (closed = true));
    socket.on('error', () => undefined);
    socket.resume();
    for (let waited = 0; (received.match(/HTTP\/1\.1 /g) ?? []).length < 2 && !closed && waited < 10_000; waited += 50) await sleep(50);
    socket.destroy();

    assert.equal(closed, false, 'the connection is kept');
    assert.deepEqual(received.match(/HTTP\/1\.1 \d+/g), ['HTTP/1.1 200', 'HTTP/1.1 200']);
    assert.match(received, /"errors":true/, 'the bulk answer, item by item');
  });
});
