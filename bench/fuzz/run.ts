/**
 * bench/fuzz: the long run of the API fuzzer (src/http/openapi.fuzz.test.ts runs a few thousand
 * requests in CI). Every route of the OpenAPI document, generated valid and invalid requests, on a
 * fresh app with a real SQLite file, through app.inject; counts the answers of 500 or more.
 *
 *   node --import tsx bench/fuzz/run.ts [--requests 100000] [--seed N]
 *
 * Prints progress, then the figures (requests, 5xx, duration, statuses) and up to 20 failing
 * requests as they can be replayed; exits 1 if any request got a 5xx or no answer.
 */
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { startTestApp } from '../../test/support/app.js';
import { describeFailure, FUZZ_CONFIG, fuzzApi } from '../../test/support/api-fuzz/run.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '100000' },
    seed: { type: 'string' },
  },
});
const requests = Number(values.requests);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);

const test = await startTestApp(FUZZ_CONFIG);
console.log(`fuzzing ${requests} requests, seed ${seed}`);
const report = await fuzzApi(test, {
  seed,
  requests,
  onProgress: (done) => {
    if (done % 10_000 === 0) console.log(`${done} requests`);
  },
});
const alive = await test.app.inject({ url: '/api/info', headers: { 'x-auth-token': test.adminToken } });
await test.close();

for (const failure of report.failures.slice(0, 20)) console.log(describeFailure(failure));
const machine = `${cpus().length} vCPU ${cpus()[0]?.model.trim() ?? ''}, ${Math.round(totalmem() / 2 ** 30)} GB RAM, Node ${process.versions.node}`;
console.log(JSON.stringify({
  requests: report.requests, routes: report.routes, fivexx: report.failures.length, seconds: Math.round(report.durationMs / 1000),
  seed, statuses: report.statuses, aliveAfter: alive.statusCode === 200, machine,
}));
process.exit(report.failures.length === 0 && alive.statusCode === 200 ? 0 : 1);
