/**
 * Analysts' live-response uploads (multipart, as cbapi sends them) that are malformed or too large,
 * over a real socket where the size is what the client declares before sending it.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { as, startListeningTestApp, type ListeningTestApp } from '../../../test/support/app.js';
import { activeSession, SESSION } from '../../../test/support/live-response.js';
import { registerSensor } from '../../../test/support/sensors.js';

const LIMIT = 64 * 1024;
const BOUNDARY = 'vigil-test';

describe('live-response uploads', () => {
  let test: ListeningTestApp;
  let url: string;
  before(async () => {
    test = await startListeningTestApp({ liveResponseFileLimitBytes: LIMIT });
    url = `${SESSION}/${await activeSession(test, await registerSensor(test))}/file`;
  });
  after(() => test.close());

  const post = (contentType: string, payload: string) =>
    test.app.inject({ method: 'POST', url, headers: { ...as(test.adminToken), 'content-type': contentType }, payload });

  const part = (headers: string) => `--${BOUNDARY}\r\n${headers}\r\n\r\n`;
  for (const [name, contentType, body] of [
    ['without a boundary', 'multipart/form-data', `${part('Content-Disposition: form-data; name="file"; filename="a"')}abc\r\n--x--\r\n`],
    ['that is not multipart at all', `multipart/form-data; boundary=${BOUNDARY}`, 'hello world'],
    ['whose file part never ends', `multipart/form-data; boundary=${BOUNDARY}`, `${part('Content-Disposition: form-data; name="file"; filename="a"')}abc`],
  ]) {
    it(`answers 400 to a multipart body ${name}`, async () => {
      const response = await post(contentType!, body!);
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(response.json().reason, 'invalid_request');
      assert.match(response.json().message, /multipart/);
    });
  }

  it('answers 413 at the declared size, before the body arrives', { timeout: 10_000 }, async () => {
    const gigabyte = 1024 ** 3;
    const answer = await new Promise<{ status: number; body: string; connection: string | undefined }>((resolve, reject) => {
      const upload = request(`${test.url}${url}`, {
        method: 'POST',
        headers: { ...as(test.adminToken), 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': gigabyte },
      }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => { body += chunk; });
        response.on('end', () => {
          upload.destroy();
          resolve({ status: response.statusCode!, body, connection: response.headers.connection });
        });
      });
      upload.on('error', reject);
      // Only the start of the gigabyte is ever sent: the answer must not wait for the rest.
      upload.write(part('Content-Disposition: form-data; name="file"; filename="dump.bin"'));
      upload.write(Buffer.alloc(1024));
    });
    assert.equal(answer.status, 413, answer.body);
    assert.equal(JSON.parse(answer.body).reason, 'payload_too_large');
    assert.equal(answer.connection, 'close', 'the server stops receiving what it refused');
  });

  it('still takes a file within the limit, streamed in pieces', async () => {
    const content = Buffer.alloc(LIMIT, 5);
    const body = Buffer.concat([
      Buffer.from(part('Content-Disposition: form-data; name="file"; filename="tool.exe"')), content, Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
    ]);
    const response = await fetch(`${test.url}${url}`, {
      method: 'POST', headers: { ...as(test.adminToken), 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, body,
    });
    assert.equal(response.status, 200, await response.clone().text());
    assert.equal(((await response.json()) as { size: number }).size, LIMIT);
  });
});
