/**
 * Issue 18 point 9 over a whole `vigil serve` on PostgreSQL: while its database refuses every
 * connection (the server's backends terminated, new ones refused with ALLOW_CONNECTIONS false),
 * the API answers 503 with a reason and Retry-After, promptly, and sensors are told to retry; once
 * the database is back everything resumes and nothing acknowledged is lost.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { onServer } from './support/postgres.js';
import { processEvents } from './support/sensors.js';
import { call, checkinOn, pollUntil, registerSensor, startCluster, uploadOn, type Answer, type Cluster } from './support/vigil-cluster.js';
import type { Server } from './support/vigil-cli.js';

/** Longest an answer may take while the database is away: the pool's connect timeout (5 s) and a margin. */
const PROMPT_MS = 8_000;

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work();
  return { value, ms: Date.now() - started };
}

function assertRetryLater(answer: Pick<Answer, 'status' | 'headers' | 'body'>, what: string): void {
  assert.equal(answer.status, 503, `${what}: ${JSON.stringify(answer.body)}`);
  assert.equal(answer.body.reason, 'database_unavailable', what);
  assert.ok(Number(answer.headers.get('retry-after')) > 0, `${what}: Retry-After`);
  assert.doesNotMatch(JSON.stringify(answer.body), /ECONN|terminat|postgres|stack/i, `${what}: no internals`);
}

describe('vigil serve when its PostgreSQL database goes away and comes back', () => {
  let cluster: Cluster;
  let server: Server;
  let name: string;
  before(async () => {
    cluster = await startCluster(1);
    server = cluster.servers[0]!;
    name = cluster.database.name;
  });
  after(async () => {
    await onServer(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    await cluster.close();
  });

  it('answers 503 database_unavailable with Retry-After, tells sensors to retry, and resumes with nothing acknowledged lost', async () => {
    const token = cluster.adminToken;
    const sensor = await registerSensor(server, token, { computer_name: 'OUTAGE-01' });
    const search = () => call(server, token, 'GET', `/api/v1/process?q=${encodeURIComponent('hostname:OUTAGE-01')}&rows=1`);
    const start = Date.now();
    assert.equal((await uploadOn(server, sensor, 1, processEvents(100, start))).status, 200);
    assert.equal((await search()).body.total_results, 1);

    await onServer(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await onServer(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`);

    const answers = {
      search: await timed(search),
      sensors: await timed(() => call(server, token, 'GET', '/api/v1/sensor')),
      watchlist: await timed(() => call(server, token, 'POST', '/api/v1/watchlist', { name: 'During', search_query: 'q=process_name:x', index_type: 'events' })),
      checkin: await timed(() => checkinOn(server, sensor)),
      upload: await timed(() => uploadOn(server, sensor, 2, processEvents(200, start))),
    };
    for (const [what, { value, ms }] of Object.entries(answers)) {
      assert.ok(ms < PROMPT_MS, `${what} answered in ${ms} ms`);
      assertRetryLater(value, what);
    }
    console.log(`# answers while the database was away: ${Object.entries(answers).map(([what, { value, ms }]) => `${what} ${value.status} in ${ms} ms`).join(', ')}`);

    await onServer(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    const back = await timed(() => pollUntil(search, (answer) => answer.status === 200, 15_000, 200));
    assert.ok(back.value.ok, `the API resumed: ${JSON.stringify(back.value.value.body)}`);
    console.log(`# the API answered again ${back.ms} ms after the database came back`);
    const retried = await uploadOn(server, sensor, 2, processEvents(200, start));
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.equal(retried.body.duplicate, false, 'the batch refused during the outage was not stored then');
    assert.equal((await checkinOn(server, sensor)).status, 200);
    assert.equal((await search()).body.total_results, 2, 'the batch acknowledged before the outage and the retried one');
  });

  it('keeps running through an outage in the middle of a stream of uploads, and stores every batch once', async () => {
    const token = cluster.adminToken;
    const streams = await Promise.all(['STREAM-1', 'STREAM-2', 'STREAM-3'].map(async (hostname) => ({
      hostname, sensor: await registerSensor(server, token, { computer_name: hostname }), acknowledged: 0, refused: 0,
    })));
    let stop = false;
    // A sensor's loop: each batch is sent until it is acknowledged, as the protocol asks.
    const running = streams.map(async (stream) => {
      for (let sequence = 1; !stop; ) {
        const start = Date.now();
        const events = Array.from({ length: 20 }, (_, i) => processEvents(sequence * 100 + i, start)).flat();
        const answer = await uploadOn(server, stream.sensor, sequence, events);
        if (answer.status === 200) {
          stream.acknowledged = sequence++;
          continue;
        }
        assertRetryLater(answer, `${stream.hostname} batch ${sequence}`);
        stream.refused += 1;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });
    const allHave = (what: () => boolean) => pollUntil(async () => what(), (ok) => ok, 20_000, 20);
    await allHave(() => streams.every((stream) => stream.acknowledged >= 2));
    await onServer(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await onServer(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`);
    await allHave(() => streams.every((stream) => stream.refused >= 2));
    const before = streams.map((stream) => stream.acknowledged);
    await onServer(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    await allHave(() => streams.every((stream, i) => stream.acknowledged >= before[i]! + 2));
    stop = true;
    await Promise.all(running);
    assert.equal(server.child.exitCode, null, 'the server is still running');
    for (const stream of streams) {
      const found = await call(server, token, 'GET', `/api/v1/process?q=${encodeURIComponent(`hostname:${stream.hostname}`)}&rows=1`);
      assert.equal(found.body.total_results, stream.acknowledged * 20, `${stream.hostname}: every acknowledged batch, once`);
    }
    console.log(`# batches acknowledged per sensor: ${streams.map((s) => s.acknowledged).join(', ')}; refused during the outage: ${streams.map((s) => s.refused).join(', ')}`);
  });
});
