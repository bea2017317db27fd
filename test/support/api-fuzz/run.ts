/**
 * Drives every route of the app's OpenAPI document with generated requests (./requests.ts) and
 * records every answer of 500 or more, or none at all. Deterministic per seed: the requests of a
 * seed are the same on every run against a fresh app, so a failure replays from its seed alone.
 */
import fc from 'fast-check';
import type { TestApp } from '../app.js';
import { registerSensor } from '../sensors.js';
import { operationsOf, requestOf, type FuzzRequest, type Operation } from './requests.js';

export interface FuzzOptions {
  seed: number;
  requests: number;
  /** A request without an answer this long counts as a failure. */
  answerTimeoutMs?: number;
  onProgress?: (done: number) => void;
}

export interface FuzzFailure {
  route: string;
  request: FuzzRequest;
  status: number | 'no answer';
  response: string;
}

export interface FuzzReport {
  seed: number;
  requests: number;
  routes: number;
  failures: FuzzFailure[];
  /** Answers per status code. */
  statuses: Record<number, number>;
  durationMs: number;
}

/** Requests are drawn in batches from seed + batch number, so a long run needs no long list in memory. */
const BATCH = 500;

/** The config a fuzzed app runs with: waits that end in a second, not minutes. */
export const FUZZ_CONFIG = { liveResponseCommandTimeoutSeconds: 1, feedDownloadTimeoutSeconds: 1, liveResponseFileLimitBytes: 64 * 1024 };

export async function fuzzApi(test: TestApp, options: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  const sensor = await registerSensor(test, { computer_name: 'FUZZ-SENSOR' });
  const document = (await test.app.inject({ url: '/openapi.json' })).json();
  const operations = operationsOf(document);
  const ingestKey = (await test.app.inject({
    method: 'POST', url: '/api/v1/group/1/ingest_key', headers: { 'x-auth-token': test.adminToken }, payload: { name: 'fuzz' },
  })).json() as { key: string };
  const credentials = { apiToken: test.adminToken, sensorAuthorization: sensor.headers.authorization, ingestAuthorization: `Bearer ${ingestKey.key}` };
  const arbitrary = fc.constantFrom(...operations).chain((operation) => requestOf(operation, credentials).map((request) => ({ operation, request })));
  const failures: FuzzFailure[] = [];
  const statuses: Record<number, number> = {};
  let done = 0;
  for (let batch = 0; done < options.requests; batch += 1) {
    const drawn = fc.sample(arbitrary, { seed: options.seed + batch, numRuns: Math.min(BATCH, options.requests - done) });
    for (const { operation, request } of drawn) {
      const answer = await send(test, request, options.answerTimeoutMs ?? 15_000);
      done += 1;
      if (answer !== undefined) statuses[answer.statusCode] = (statuses[answer.statusCode] ?? 0) + 1;
      if (answer === undefined || answer.statusCode >= 500) {
        failures.push({ route: routeOf(operation), request, status: answer?.statusCode ?? 'no answer', response: answer?.body.slice(0, 300) ?? '' });
      }
    }
    options.onProgress?.(done);
  }
  return { seed: options.seed, requests: done, routes: operations.length, failures, statuses, durationMs: Date.now() - started };
}

function routeOf(operation: Operation): string {
  return `${operation.method} ${operation.path}`;
}

async function send(test: TestApp, request: FuzzRequest, timeoutMs: number): Promise<{ statusCode: number; body: string } | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
  });
  const answer = test.app.inject({
    method: request.method as 'GET', url: request.url, headers: request.headers, ...(request.body === undefined ? {} : { payload: request.body }),
  }).then((response) => ({ statusCode: response.statusCode, body: response.body }), (error: Error) => ({ statusCode: 599, body: `inject failed: ${error.message}` }));
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A failure as a reader can replay it: the route, the request, and what came back. */
export function describeFailure(failure: FuzzFailure): string {
  const body = failure.request.body === undefined ? '' : `\n  body: ${JSON.stringify(failure.request.body.toString('utf8').slice(0, 500))}`;
  return `${failure.route} → ${failure.status}\n  ${failure.request.method} ${failure.request.url}` +
    `\n  headers: ${JSON.stringify(failure.request.headers)}${body}\n  answer: ${failure.response}`;
}
