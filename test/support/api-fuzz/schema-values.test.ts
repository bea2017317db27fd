/**
 * The fuzzer's value generators must end for every schema the API declares: a generator that
 * retries forever hangs the whole fuzz run (an integer with `minimum: 1024` once did), so each
 * sample here runs in a worker that is stopped after a time limit.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';

const SAMPLER = `
const { workerData, parentPort } = require('node:worker_threads');
(async () => {
  // A worker does not inherit the test's TypeScript loader: it registers its own.
  (await import('tsx/esm/api')).register();
  const fc = (await import('fast-check')).default;
  const { validValue } = await import(workerData.module);
  parentPort.postMessage(fc.sample(validValue(workerData.schema), { seed: 1, numRuns: 200 }));
})();
`;

/** Samples 200 valid values of the schema, or fails when they take longer than the limit. */
async function sampleWithin(schema: Record<string, unknown>, limitMs: number): Promise<unknown[]> {
  const module = new URL('./schema-values.ts', import.meta.url).href;
  const worker = new Worker(SAMPLER, { eval: true, workerData: { schema, module } });
  const timer = setTimeout(() => void worker.terminate(), limitMs);
  try {
    return await new Promise<unknown[]>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', () => reject(new Error(`sampling ${JSON.stringify(schema)} did not end within ${limitMs} ms`)));
    });
  } finally {
    clearTimeout(timer);
    await worker.terminate();
  }
}

describe('fuzzed values of integer schemas', () => {
  it('draws integers whose range holds none of the small ids', { timeout: 60_000 }, async () => {
    const values = await sampleWithin({ type: 'integer', minimum: 1024 }, 30_000);
    assert.equal(values.length, 200);
    assert.ok(values.every((v) => Number.isInteger(v) && (v as number) >= 1024), JSON.stringify(values.slice(0, 10)));
  });

  it('keeps drawing the small ids the app starts with when the range allows them', { timeout: 60_000 }, async () => {
    const values = await sampleWithin({ type: 'integer', minimum: 3, maximum: 1000 }, 30_000);
    assert.ok(values.every((v) => Number.isInteger(v) && (v as number) >= 3 && (v as number) <= 1000));
    assert.ok(values.some((v) => v === 3 || v === 4 || v === 5), 'no small id was drawn');
  });
});
