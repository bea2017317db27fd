/**
 * Jobs that run once across servers, on real databases with two "servers" (two pools on one
 * PostgreSQL database; two connections to one SQLite file): of two servers checking the same job,
 * one runs it per period; while it runs the other skips it; when its holder dies (stops renewing,
 * closes its pool) the other takes it over once the lease has run out.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { dialects } from '../../test/support/dialects.js';
import { twoServers, type TwoServers } from '../../test/support/two-servers.js';
import { SqlJobLeasesStore } from './job-leases.store.js';
import { LeasedJobs } from './leased-jobs.js';

const MINUTE = 60_000;

/** A job that runs until `release()`; counts its runs. */
function heldJob() {
  let release = () => undefined as void;
  const job = {
    runs: 0,
    work: async () => {
      job.runs += 1;
      await new Promise<void>((resolve) => (release = resolve));
    },
    release: () => release(),
  };
  return job;
}

for (const { name } of dialects) {
  describe(`jobs across servers on ${name}`, () => {
    let servers: TwoServers;
    before(async () => {
      servers = await twoServers(name);
    });
    after(async () => {
      await servers.close();
    });

    it('runs a job on one server per period, and skips it on the other while it runs', async () => {
      let now = Date.parse('2026-11-26T03:00:00Z');
      const clock = () => now;
      const a = new LeasedJobs(new SqlJobLeasesStore(servers.a), { leaseMs: MINUTE, holder: 'a', now: clock });
      const b = new LeasedJobs(new SqlJobLeasesStore(servers.b), { leaseMs: MINUTE, holder: 'b', now: clock });
      const job = heldJob();
      const first = a.once('pass', 10 * MINUTE, job.work);
      await sleep(50);
      assert.equal(await b.once('pass', 10 * MINUTE, job.work), false, 'held by a while it runs');
      job.release();
      assert.equal(await first, true);
      now += MINUTE;
      assert.equal(await b.once('pass', 10 * MINUTE, job.work), false, 'done a minute ago: not due');
      assert.equal(await a.once('pass', 10 * MINUTE, job.work), false, 'not due for its holder either');
      now += 9 * MINUTE;
      const second = b.once('pass', 10 * MINUTE, job.work);
      await sleep(50);
      job.release();
      assert.equal(await second, true, 'due again after its period, on whichever server checks');
      assert.equal(job.runs, 2);
    });

    it('lets exactly one of many simultaneous claims win', async () => {
      const a = new LeasedJobs(new SqlJobLeasesStore(servers.a), { leaseMs: MINUTE, holder: 'a' });
      const b = new LeasedJobs(new SqlJobLeasesStore(servers.b), { leaseMs: MINUTE, holder: 'b' });
      let runs = 0;
      const work = async () => {
        runs += 1;
        await sleep(100);
      };
      const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).once(`race`, MINUTE, work)));
      assert.equal(claims.filter(Boolean).length, 1);
      assert.equal(runs, 1);
    });
  });
}

describe('a holder that dies, on PostgreSQL', () => {
  // Each test kills server a, so each has its own pair.
  let servers: TwoServers;
  beforeEach(async () => {
    servers = await twoServers('postgres');
  });
  afterEach(async () => {
    await servers.close();
  });

  it('keeps its lease while it renews, and loses it to the other server within the lease time once it stops', async () => {
    const leaseMs = 600;
    const a = new LeasedJobs(new SqlJobLeasesStore(servers.a), { leaseMs, holder: 'a', onError: () => undefined });
    const b = new LeasedJobs(new SqlJobLeasesStore(servers.b), { leaseMs, holder: 'b' });
    const stuck = heldJob();
    void a.once('retention', 0, stuck.work);
    await sleep(50);
    // Renewed every 200 ms: after three lease times a is still the holder.
    for (let waited = 0; waited < 3 * leaseMs; waited += 150) {
      assert.equal(await b.once('retention', 0, async () => undefined), false);
      await sleep(150);
    }
    await servers.a.close();
    const diedAt = Date.now();
    let takenOver = false;
    while (!takenOver && Date.now() - diedAt < 3 * leaseMs) {
      takenOver = await b.once('retention', 0, async () => undefined);
      if (!takenOver) await sleep(50);
    }
    const afterMs = Date.now() - diedAt;
    assert.ok(takenOver, 'b took the job over');
    assert.ok(afterMs <= leaseMs + 100, `taken over ${afterMs} ms after the holder died (lease ${leaseMs} ms)`);
    stuck.release();
  });

  it('runs a scheduled job on one server at a time, and on the survivor after the other dies', async () => {
    const leaseMs = 400;
    const everyMs = 200;
    const log: string[] = [];
    let running = 0;
    let overlapped = false;
    const workOf = (server: string) => async () => {
      running += 1;
      overlapped ||= running > 1;
      log.push(server);
      await sleep(20);
      running -= 1;
    };
    const { a: poolA, b: poolB } = servers;
    const a = new LeasedJobs(new SqlJobLeasesStore(poolA), { leaseMs, holder: 'a', onError: () => undefined });
    const b = new LeasedJobs(new SqlJobLeasesStore(poolB), { leaseMs, holder: 'b', onError: () => undefined });
    a.every('sync', everyMs, workOf('a'));
    b.every('sync', everyMs, workOf('b'));
    await sleep(1_000);
    const runsBoth = log.length;
    assert.ok(!overlapped, 'never on both at once');
    assert.ok(runsBoth >= 3 && runsBoth <= 6, `${runsBoth} runs in 1 s at one per 200 ms across both servers`);
    await a.stop();
    await poolA.close();
    log.length = 0;
    await sleep(1_000);
    assert.ok(log.length >= 3 && log.every((server) => server === 'b'), `the survivor runs it alone: ${log.join(' ')}`);
    await b.stop();
  });
});
