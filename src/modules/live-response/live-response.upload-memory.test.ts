/**
 * A live-response upload within the limit streams to its store: the multipart file part goes to
 * the content store a piece at a time, never held whole (issue 17 point 5). The body is generated
 * as it is sent, so the test holds none of it either; the store is the one the test apps run on.
 */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { peakGrowthDuring } from '../../../test/support/live-memory.js';
import { as, startTestApp, type TestApp } from '../../../test/support/app.js';
import { activeSession, SESSION } from '../../../test/support/live-response.js';
import { registerSensor } from '../../../test/support/sensors.js';

const BOUNDARY = 'vigil-memory';
const BLOCK = Buffer.alloc(256 * 1024, 0x5a);
const BLOCKS = 192;
const SIZE = BLOCK.length * BLOCKS;

/** A block per timer turn of the event loop, as a network would deliver it: the memory sampler (a timer) runs between. */
async function* body(): AsyncGenerator<Buffer> {
  yield Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="memory.dmp"\r\n\r\n`);
  for (let i = 0; i < BLOCKS; i += 1) {
    await sleep(0);
    yield BLOCK;
  }
  yield Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
}


describe('live-response uploads in memory', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp({ liveResponseFileLimitBytes: 2 * SIZE });
  });
  after(() => test.close());

  it(`stores a ${SIZE / 2 ** 20} MB file with far less than its size in memory`, async () => {
    const url = `${SESSION}/${await activeSession(test, await registerSensor(test))}/file`;
    const { result: response, growthMb } = await peakGrowthDuring(250, () => test.app.inject({
      method: 'POST', url, headers: { ...as(test.adminToken), 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      payload: Readable.from(body()),
    }));
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().size, SIZE);
    assert.ok(growthMb < 12, `live memory grew ${growthMb.toFixed(0)} MB for a ${SIZE / 2 ** 20} MB upload`);
  });
});
