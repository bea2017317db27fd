/**
 * Large binary uploads stream through the server: their content is staged on disk and hashed on
 * the way, and goes into PostgreSQL in pieces, never held whole in memory (four concurrent 100 MB
 * uploads once added some 400 MB). The bodies are generated as they are sent, so the test itself
 * holds none of them either. Both stores, whatever VIGIL_TEST_STORE says: where the content ends
 * up differs (files, or the database) and each way must stream.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { peakGrowthDuring } from '../../../test/support/live-memory.js';
import { openAppDatabase, startTestApp, type TestApp } from '../../../test/support/app.js';
import { freshMigratedDatabase } from '../../../test/support/dialects.js';
import { dropTestDatabase } from '../../../test/support/postgres.js';
import { registerSensor } from '../../../test/support/sensors.js';
import { tempDir } from '../../../test/support/temp.js';
import { PostgresDatabase } from '../../db/dialects/postgres.js';
import { BinaryContentStore } from './binary-content.js';
import { PostgresBinaryContent } from './binary-content.postgres.js';

/** A multiple of 3 bytes, so the base64 of the blocks is the base64 of the whole. */
const BLOCK = Buffer.from(Array.from({ length: 3 * 65_536 }, (_, i) => (i * 2_654_435_761) >>> 24));
const BLOCKS = 256;
const SIZE = BLOCK.length * BLOCKS;
const CONCURRENT_UPLOADS = 4;
/** Each of the concurrent uploads: half the single one, so that four fit a CI run's time. */
const BLOCKS_EACH = BLOCKS / 2;
const SIZE_EACH = BLOCK.length * BLOCKS_EACH;

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


/** Binaries of SIZE_EACH bytes that differ in their first byte, so each is stored apart. */
function variant(index: number): { block0: Buffer; md5: string; sha256: string } {
  const block0 = Buffer.from(BLOCK);
  block0[0] = index;
  const hash = (algorithm: string) => {
    const digest = createHash(algorithm).update(block0);
    for (let i = 1; i < BLOCKS_EACH; i += 1) digest.update(BLOCK);
    return digest.digest('hex');
  };
  return { block0, md5: hash('md5'), sha256: hash('sha256') };
}

function* variantBody(metadata: object, block0: Buffer): Generator<Buffer> {
  yield Buffer.from(`{"metadata": ${JSON.stringify(metadata)}, "content": "`);
  yield Buffer.from(block0.toString('base64'));
  const encoded = Buffer.from(BLOCK.toString('base64'));
  for (let i = 1; i < BLOCKS_EACH; i += 1) yield encoded;
  yield Buffer.from('"}');
}

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
    const { result: response, growthMb } = await peakGrowthDuring(250, () => test.app.inject({
      method: 'POST', url: '/sensor/v1/binaries', headers: { ...sensor.headers, 'content-type': 'application/json' },
      payload: Readable.from(body(metadata)),
    }));
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { md5, stored: true });
    assert.ok(growthMb < 8, `live memory grew ${growthMb.toFixed(0)} MB for a ${SIZE / 2 ** 20} MB upload`);
    const stored = join(test.config.dataDir, 'binaries', md5.slice(0, 2), md5);
    assert.equal(statSync(stored).size, SIZE);
    assert.deepEqual(readFileSync(stored).subarray(0, BLOCK.length), BLOCK);
  });
});

for (const store of ['sqlite', 'postgres'] as const) {
  describe(`${CONCURRENT_UPLOADS} concurrent binary uploads on ${store}`, () => {
    let test: TestApp;
    let database: { name: string; url: string } | undefined;
    before(async () => {
      database = store === 'postgres' ? await freshMigratedDatabase() : undefined;
      test = await startTestApp(database ? { databaseUrl: database.url } : {});
    });
    after(async () => {
      await test.close();
      if (database) await dropTestDatabase(database.name);
    });

    it(`store ${CONCURRENT_UPLOADS} × ${SIZE_EACH / 2 ** 20} MB with far less than one of them in memory, and download each whole`, async () => {
      const sensor = await registerSensor(test);
      const binaries = Array.from({ length: CONCURRENT_UPLOADS }, (_, i) => variant(i + 1));
      // Once a second: two full collections of the whole app's heap every 250 ms left the
      // uploads almost no time to run on a loaded machine.
      const { result: responses, growthMb } = await peakGrowthDuring(1000, () => Promise.all(binaries.map(({ block0, md5, sha256 }) => test.app.inject({
        method: 'POST', url: '/sensor/v1/binaries', headers: { ...sensor.headers, 'content-type': 'application/json' },
        payload: Readable.from(variantBody({ md5, sha256, size: SIZE_EACH, observed_filename: `C:\\dumps\\${md5}.bin` }, block0)),
      }))));
      for (const [i, response] of responses.entries()) {
        assert.equal(response.statusCode, 200, response.body);
        assert.deepEqual(response.json(), { md5: binaries[i]!.md5, stored: true });
      }
      assert.ok(growthMb < 16, `live memory grew ${growthMb.toFixed(0)} MB for ${CONCURRENT_UPLOADS} uploads of ${SIZE_EACH / 2 ** 20} MB`);
      const db = openAppDatabase(test);
      try {
        const content = db instanceof PostgresDatabase
          ? new PostgresBinaryContent(db, tempDir('vigil-bin-read-'))
          : new BinaryContentStore(join(test.config.dataDir, 'binaries'));
        for (const { md5 } of binaries) {
          const opened = await content.open(md5);
          assert.equal(opened?.size, SIZE_EACH);
          const digest = createHash('md5');
          for await (const chunk of opened.stream) digest.update(chunk as Buffer);
          assert.equal(digest.digest('hex'), md5);
        }
      } finally {
        await db.close();
      }
    });
  });
}
