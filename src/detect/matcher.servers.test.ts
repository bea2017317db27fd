/**
 * A watchlist created through another server reaches this server's live runs: the matcher here is
 * not told of the change (the app's own matcher is off, so no one hears the API's change event, as
 * a server would not hear another's), yet within its search refresh period its live runs read the
 * watchlists afresh and tag new data with it. Real read pool, sink and watchlists.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { as, type TestApp } from '../../test/support/app.js';
import { startMatcherBed, type MatcherBed } from '../../test/support/matcher-bed.js';
import { processEvents, registerSensor, uploadEvents } from '../../test/support/sensors.js';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');

describe('detection matcher: watchlists changed elsewhere', () => {
  let bed: MatcherBed;
  let test: TestApp;
  before(async () => {
    bed = await startMatcherBed();
    test = bed.test;
  });
  after(() => bed.close());

  it('reads the watchlists afresh for its live runs once its refresh period has passed', async () => {
    const matcher = bed.matcher({ coalesceMs: 10, catchUpIntervalMs: 3_600_000, searchRefreshMs: 200 });
    let watchlistId: number;
    try {
      matcher.start();
      await matcher.idle();
      const created = await test.app.inject({
        method: 'POST', url: '/api/v1/watchlist', headers: as(test.adminToken), payload: { name: 'Shells', search_query: 'q=process_name%3Acmd.exe' },
      });
      assert.equal(created.statusCode, 200, created.body);
      watchlistId = created.json().id;
      await sleep(250);
      const sensor = await registerSensor(test);
      assert.equal((await uploadEvents(test, sensor, 1, processEvents(100, T0))).statusCode, 200);
      matcher.committed();
      await sleep(50);
      await matcher.idle();
    } finally {
      await matcher.close();
    }
    const record = (await test.app.inject({ url: `/api/v1/watchlist/${watchlistId}`, headers: as(test.adminToken) })).json();
    assert.equal(record.total_hits, '1', 'the live run matched with the watchlist it had not been told of');
  });
});
