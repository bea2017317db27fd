/**
 * Site throttling end to end: rules set over the API reach the simulated sensor at check-in, and
 * it holds its uploads to them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { simulate } from '../src/sensor/simulator.js';
import { as, openAppDatabase, startListeningTestApp, type ListeningTestApp } from './support/app.js';

/** Bytes a second the whole week: a sensor streaming 2,000 events a second sends far more. */
const LIMIT = 40_000;

describe('site throttling with the simulator against a real server', () => {
  let test: ListeningTestApp;
  before(async () => {
    test = await startListeningTestApp();
  });
  after(() => test.close());

  it('delivers the Default Site\'s rules to the sensor, which holds its uploads to them', async () => {
    for (let day = 0; day < 7; day++) {
      const created = await test.app.inject({
        method: 'POST', url: '/api/throttle', headers: as(test.adminToken),
        payload: { site_id: 1, day_of_week: day, from: 0, to: 24, bytes_per_second: LIMIT },
      });
      assert.equal(created.statusCode, 200, created.body);
    }
    const durationS = 3;
    const summary = await simulate({
      server: test.url, token: test.adminToken, sensors: 1, seed: 'throttle-e2e', durationS, rate: 2000, checkinIntervalS: 0.1, batchSize: 200,
    });
    assert.deepEqual(summary.errors, []);
    assert.equal(summary.events_acknowledged, summary.events_sent);
    // Unthrottled, the sensor would send about 6,000 events (2,000 a second). Throttled, the first
    // batches go before the rules arrive, and then one batch of 200 (some 60-80 kB) every 1.5-2 s.
    assert.ok(summary.events_sent > 0 && summary.events_sent <= 1200, `${summary.events_sent} events sent`);

    const db = openAppDatabase(test);
    try {
      const delivered = await db.get<{ n: number }>(`SELECT count(*) AS n FROM sensor_instructions WHERE type = 'throttle' AND completed_ms IS NOT NULL`);
      assert.equal(Number(delivered!.n), 1, 'the sensor acknowledged the rule list');
    } finally {
      await db.close();
    }
  });
});
