/**
 * The bound on what a gzip upload may decompress to, through the real protocol: bodies are
 * decompressed in large output chunks, and a body within the bound but larger than one chunk must
 * still be read whole, while one beyond it is refused before it is read.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { as, startTestApp, type TestApp } from '../../test/support/app.js';
import { processEvents, registerSensor, type TestSensor } from '../../test/support/sensors.js';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const MIB = 1024 * 1024;

/** A batch whose JSON is padded with whitespace to `bytes`, gzipped. */
function paddedBatch(sequence: number, pid: number, bytes: number): Buffer {
  const text = JSON.stringify({ sequence, events: processEvents(pid, T0) });
  return gzipSync(text.slice(0, -1) + ' '.repeat(bytes - text.length) + '}');
}

describe('decompressed size of event uploads', () => {
  let test: TestApp;
  let sensor: TestSensor;
  before(async () => {
    test = await startTestApp({ eventUploadDecodedLimitBytes: 1.5 * MIB });
    sensor = await registerSensor(test);
  });
  after(() => test.close());

  const upload = (body: Buffer) => test.app.inject({
    method: 'POST', url: '/sensor/v1/events', payload: body,
    headers: { ...sensor.headers, 'content-type': 'application/json', 'content-encoding': 'gzip' },
  });

  it('reads a body within the bound whole, though it decompresses to more than one chunk', async () => {
    const response = await upload(paddedBatch(1, 800, 1.25 * MIB));
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { sequence: 1, duplicate: false, accepted: 8, filtered: 0, rejected: [] });
  });

  it('refuses a body that decompresses beyond the bound with 413, and counts it', async () => {
    const response = await upload(paddedBatch(2, 801, 8 * MIB));
    assert.equal(response.statusCode, 413);
    assert.equal(response.json().reason, 'batch_too_large');
    const counts = await test.app.inject({ url: `/api/v1/sensor/${sensor.id}/ingest`, headers: as(test.adminToken) });
    assert.equal(counts.json()['batches_rejected.batch_too_large'], 1);
  });
});
