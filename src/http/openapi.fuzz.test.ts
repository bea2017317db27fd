/**
 * Every route of the OpenAPI document, fuzzed: generated valid and invalid parameters, headers and
 * bodies, as the global admin and with missing or forged credentials. No answer may be a 5xx, and
 * the server must answer normally afterwards. Bounded for CI; bench/fuzz/run.ts is the long run.
 * VIGIL_FUZZ_SEED and VIGIL_FUZZ_REQUESTS change the seed (default fixed) and the request count.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, startTestApp, type TestApp } from '../../test/support/app.js';
import { describeFailure, FUZZ_CONFIG, fuzzApi } from '../../test/support/api-fuzz/run.js';

const SEED = Number(process.env.VIGIL_FUZZ_SEED ?? 17);
const REQUESTS = Number(process.env.VIGIL_FUZZ_REQUESTS ?? 2500);

describe('API fuzzing', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp(FUZZ_CONFIG);
  });
  after(() => test.close());

  it(`answers every generated request below 500 (seed ${SEED}, ${REQUESTS} requests)`, { timeout: 180_000 }, async () => {
    const report = await fuzzApi(test, { seed: SEED, requests: REQUESTS });
    const shown = report.failures.slice(0, 5).map(describeFailure).join('\n');
    assert.equal(
      report.failures.length, 0,
      `${report.failures.length} of ${report.requests} requests failed; replay with VIGIL_FUZZ_SEED=${SEED} VIGIL_FUZZ_REQUESTS=${REQUESTS}\n${shown}`,
    );
    assert.ok(report.routes > 100, `only ${report.routes} routes in the OpenAPI document`);
    for (const url of ['/api/info', '/api/v1/sensor']) {
      const answer = await test.app.inject({ url, headers: as(test.adminToken) });
      assert.equal(answer.statusCode, 200, `${url} after fuzzing: ${answer.body}`);
    }
  });
});
