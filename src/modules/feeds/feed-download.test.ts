/** Feed downloads against a real loopback HTTP server and real files, with their bounds. */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { startFeedServer, writeFeedFile, type FeedServer } from '../../../test/support/feeds.js';
import { tempDir } from '../../../test/support/temp.js';
import { loadOrCreateCertificate } from '../../http/tls.js';
import { downloadFeed, FeedDownloadError, type DownloadFailure } from './feed-download.js';

const OPTIONS = { maxBytes: 1024, timeoutMs: 2000, validateServerCert: true };

async function failure(promise: Promise<unknown>): Promise<DownloadFailure> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof FeedDownloadError, `expected a FeedDownloadError, got ${String(error)}`);
  return error.failure;
}

describe('feed downloads', () => {
  let server: FeedServer;
  let dir: string;
  before(async () => {
    server = await startFeedServer();
    dir = tempDir('vigil-feeds-');
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads http, following redirects and undoing gzip, with basic auth when given', async () => {
    let authorization: string | undefined;
    server.handle((request, response) => {
      if (request.url === '/moved') return response.writeHead(302, { location: '/feed.json' }).end();
      authorization = request.headers.authorization;
      response.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('{"ok":true}'));
    });
    const moved = server.url.replace('/feed.json', '/moved');
    assert.equal((await downloadFeed(moved, { ...OPTIONS, username: 'feeder', password: 's3cret' })).toString(), '{"ok":true}');
    assert.equal(authorization, `Basic ${Buffer.from('feeder:s3cret').toString('base64')}`);
  });

  it('says unreachable for an error status, a closed port and an unknown scheme', async () => {
    server.handle((_request, response) => response.writeHead(404).end('no'));
    assert.equal(await failure(downloadFeed(server.url, OPTIONS)), 'unreachable');
    assert.equal(await failure(downloadFeed('http://127.0.0.1:1/feed.json', OPTIONS)), 'unreachable');
    assert.equal(await failure(downloadFeed('ftp://127.0.0.1/feed.json', OPTIONS)), 'unreachable');
  });

  it('stops at the byte limit, declared or streamed, and after decompression', async () => {
    server.handle((_request, response) => response.writeHead(200, { 'content-length': '5000' }).end('x'.repeat(5000)));
    assert.equal(await failure(downloadFeed(server.url, OPTIONS)), 'too_large');
    server.handle((_request, response) => {
      response.writeHead(200);
      for (let i = 0; i < 10; i++) response.write('y'.repeat(500));
      response.end();
    });
    assert.equal(await failure(downloadFeed(server.url, OPTIONS)), 'too_large');
    server.handle((_request, response) => response.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('z'.repeat(100_000))));
    assert.equal(await failure(downloadFeed(server.url, OPTIONS)), 'too_large');
  });

  it('gives up at the deadline when the server stalls', async () => {
    server.handle((_request, response) => {
      response.writeHead(200);
      response.write('{"feedinfo":');
    });
    const started = Date.now();
    assert.equal(await failure(downloadFeed(server.url, { ...OPTIONS, timeoutMs: 300 })), 'timeout');
    assert.ok(Date.now() - started < 2000);
  });

  it('checks an https server\'s certificate unless the feed says not to', async () => {
    const tls = await loadOrCreateCertificate(dir, '127.0.0.1');
    const secure = createServer({ key: tls.key, cert: tls.cert }, (_request, response) => response.end('{"tls":true}'));
    await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
    try {
      const url = `https://127.0.0.1:${(secure.address() as AddressInfo).port}/feed.json`;
      assert.equal(await failure(downloadFeed(url, OPTIONS)), 'unreachable', 'a self-signed certificate fails the check');
      assert.equal((await downloadFeed(url, { ...OPTIONS, validateServerCert: false })).toString(), '{"tls":true}');
    } finally {
      secure.closeAllConnections();
      await new Promise((resolve) => secure.close(resolve));
    }
  });

  it('reads file URLs, bounded the same way', async () => {
    assert.equal((await downloadFeed(writeFeedFile(dir, 'small.json', { a: 1 }), OPTIONS)).toString(), '{"a":1}');
    assert.equal(await failure(downloadFeed(writeFeedFile(dir, 'big.json', 'x'.repeat(5000)), OPTIONS)), 'too_large');
    assert.equal(await failure(downloadFeed(`${writeFeedFile(dir, 'x.json', '')}.missing`, OPTIONS)), 'unreachable');
  });
});
