/**
 * A large binary upload streams through the server: its content is staged on disk and hashed on
 * the way, never held whole in memory (four concurrent 100 MB uploads once added some 400 MB).
 * The body is generated as it is sent, so the test itself holds none of it either.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { registerSensor } from '../../../test/support/sensors.js';

/** A multiple of 3 bytes, so the base64 of the blocks is the base64 of the whole. */
const BLOCK = Buffer.from(Array.from({ length: 3 * 65_536 }, (_, i) => (i * 2_654_435_761) >>> 24));
const BLOCKS = 256;
const SIZE = BLOCK.length * BLOCKS;

function hashOf(algorithm: string): string {
  const hash = createHash(algorithm);
  for (let i = 0; i < BLOCKS; i += 1) hash.update(BLOCK);
  return hash.digest('hex');
}

function* body(metadata: object): Generator<Buffer> {
  yield Buffer.from(`{"metadata": ${JSON.stringify(metadata)}, "content": "`);
  const encoded = Buffer.from(BLOCK.toString('base64'));
  for (let i = 0; i < BLOCKS; i += 1) yield encoded;
  yield Buffer.from('"}');
}

// Live memory, not garbage the collector has yet to reach: decoded pieces die young but large
// strings and buffers wait for a full collection, which would blur what the upload holds.
// Twice, because V8 frees dead buffers' memory on a background thread after a collection, and
// the next collection waits for that to finish: after one, up to 20 MB of dead buffers were
// still counted, at random.
v8.setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
const live = () => {
  collect();
  collect();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
};

describe('binary uploads in memory', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp();
  });
  after(() => test.close());

  it(`stores a ${SIZE / 2 ** 20} MB binary with far less than its size in memory`, async () => {
    const sensor = await registerSensor(test);
    const md5 = hashOf('md5');
    const metadata = { md5, sha256: hashOf('sha256'), size: SIZE, observed_filename: 'C:\\dumps\\big.bin' };
    const baseline = live();
    let peak = baseline;
    const sampler = setInterval(() => { peak = Math.max(peak, live()); }, 250);
    const response = await test.app.inject({
      method: 'POST', url: '/sensor/v1/binaries', headers: { ...sensor.headers, 'content-type': 'application/json' },
      payload: Readable.from(body(metadata)),
    });
    clearInterval(sampler);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { md5, stored: true });
    const growthMb = (peak - baseline) / 2 ** 20;
    assert.ok(growthMb < 8, `live memory grew ${growthMb.toFixed(0)} MB for a ${SIZE / 2 ** 20} MB upload`);
    const stored = join(test.config.dataDir, 'binaries', md5.slice(0, 2), md5);
    assert.equal(statSync(stored).size, SIZE);
    assert.deepEqual(readFileSync(stored).subarray(0, BLOCK.length), BLOCK);
  });
});
