/** Times in seconds written from the stored milliseconds' text are what JSON.stringify writes of value / 1000. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { secondsText } from './forwarder-raw-json.js';

const expected = (ms: number) => JSON.stringify(ms / 1000);

it('writes epoch milliseconds as seconds, trailing zeros and all digits counts alike', () => {
  for (const ms of [1000, 1001, 1010, 1100, 10_000, 1_700_000_000_000, 1_700_000_000_120, 1_700_000_000_003, 999_999_999_999_999, 100_000_000_000_000]) {
    assert.equal(secondsText(String(ms)), expected(ms), String(ms));
  }
  fc.assert(fc.property(fc.oneof(fc.integer({ min: 1e12, max: 1e13 }), fc.maxSafeNat(), fc.integer()), (ms) => {
    assert.equal(secondsText(String(ms)), expected(ms));
  }), { numRuns: 20_000 });
});
