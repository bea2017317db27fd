/**
 * Catch-up passes yield to live runs: a commit acknowledged while a pass over many new watchlists
 * is under way is matched between two of its searches, not after the whole pass. The matcher runs
 * on the real read pool, sink and watchlists; only its view of the pool is slowed, so that the
 * pass lasts long enough to be interrupted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, type TestApp } from '../../test/support/app.js';
import { startMatcherBed, type MatcherBed } from '../../test/support/matcher-bed.js';
import { processEvents, registerSensor, uploadEvents } from '../../test/support/sensors.js';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const WATCHLISTS = 20;

describe('detection matcher: catch-up passes and live runs', () => {
  let bed: MatcherBed;
  let test: TestApp;
  before(async () => {
    bed = await startMatcherBed();
    test = bed.test;
  });
  after(() => bed.close());

  it('runs a live run asked for during a catch-up pass before the rest of the pass', async () => {
    const ids: number[] = [];
    for (let i = 0; i < WATCHLISTS; i++) {
      const response = await test.app.inject({
        method: 'POST', url: '/api/v1/watchlist', headers: as(test.adminToken),
        payload: { name: `shells ${i}`, search_query: `q=${encodeURIComponent(i === 0 ? 'process_name:cmd.exe' : `process_name:tool${i}.exe`)}` },
      });
      assert.equal(response.statusCode, 200, response.body);
      ids.push(response.json().id);
    }
    const jobs: string[] = [];
    const matcher = bed.matcher({ coalesceMs: 10, catchUpIntervalMs: 3_600_000 }, async (job, runOnPool) => {
      jobs.push(job.kind === 'catch-up' && job.specs.length === 0 ? 'start' : job.kind);
      if (job.kind === 'catch-up') await new Promise((resolve) => setTimeout(resolve, 20));
      return runOnPool(job);
    });
    try {
      matcher.start();
      const sensor = await registerSensor(test);
      assert.equal((await uploadEvents(test, sensor, 1, processEvents(100, T0))).statusCode, 200);
      while (jobs.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
      matcher.committed();
      await matcher.idle();
    } finally {
      await matcher.close();
    }
    const live = jobs.indexOf('live');
    assert.ok(live > 0 && live < jobs.length - 3, `the live run came before most of the pass: ${jobs.join(' ')}`);
    const record = (await test.app.inject({ url: `/api/v1/watchlist/${ids[0]}`, headers: as(test.adminToken) })).json();
    assert.equal(record.total_hits, '1', 'the live run and the pass count the process once');
  });
});
