/**
 * The simulator's idle-sensor mode and its long-run figures against a real server: many sensors
 * that only check in, spread over the interval, and the per-type and per-minute counts a soak
 * reads at its end.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { simulate } from '../src/sensor/simulator.js';
import { as, startListeningTestApp, type ListeningTestApp } from './support/app.js';

describe('vigil simulate with idle sensors against a real server', () => {
  let test: ListeningTestApp;
  before(async () => {
    test = await startListeningTestApp();
  });
  after(() => test.close());

  async function sensorCount(): Promise<number> {
    const reply = await test.app.inject({ url: '/api/v1/sensor', headers: as(test.adminToken) });
    assert.equal(reply.statusCode, 200, reply.body);
    return reply.json<unknown[]>().length;
  }

  it('registers idle sensors beside the streaming one; each checks in every interval and sends no events', async () => {
    const before = await sensorCount();
    const summary = await simulate({
      server: test.url, token: test.adminToken, seed: 'idle-e2e', sensors: 1, idleSensors: 20, durationS: 2.5, checkinIntervalS: 1, batchSize: 500,
    });
    assert.deepEqual(summary.errors, []);
    assert.equal(summary.ok, true);
    assert.equal(summary.sensors, 1);
    assert.equal(summary.idle_sensors, 20);
    assert.equal(await sensorCount(), before + 21);
    // 21 sensors for 2.5 s at one check-in a second, the idle ones' first within the first second.
    assert.ok(summary.checkins >= 21 * 2, `${summary.checkins} check-ins`);
    assert.ok(summary.checkin_latency_p99_ms > 0 && summary.checkin_latency_p50_ms <= summary.checkin_latency_p99_ms);
    assert.equal(summary.checkin_latency_p99_ms_by_minute.length, 1);
    const byType = Object.values(summary.events_acknowledged_by_type).reduce((a, b) => a + b, 0);
    assert.equal(byType, summary.events_acknowledged);
    assert.ok(summary.events_acknowledged_by_type.process_start! > 0);
    assert.equal(summary.ack_latency_p99_ms_by_minute.length, 1);
    assert.ok(summary.ack_latency_p99_ms_by_minute[0]! > 0);
  });

  it('runs a fleet of idle sensors alone until the duration ends', async () => {
    const started = Date.now();
    const summary = await simulate({ server: test.url, token: test.adminToken, seed: 'idle-only', sensors: 0, idleSensors: 5, durationS: 1.5, checkinIntervalS: 0.5 });
    assert.deepEqual(summary.errors, []);
    assert.equal(summary.events_sent, 0);
    assert.ok(Date.now() - started >= 1500, 'the run lasts its duration');
    assert.ok(summary.checkins >= 5 * 2, `${summary.checkins} check-ins`);
    assert.deepEqual(summary.ack_latency_p99_ms_by_minute, []);
  });

  it('reports how late its own event loop ran, so that a lagging simulator is not read as a slow server', async () => {
    let blocked = false;
    // Its first progress report comes once the sensors are registered, when the loop is watched.
    const blockOnce = () => {
      if (blocked) return;
      blocked = true;
      for (const until = Date.now() + 300; Date.now() < until;);
    };
    const summary = await simulate({
      server: test.url, token: test.adminToken, seed: 'idle-lag', sensors: 0, idleSensors: 3, durationS: 1.5, checkinIntervalS: 0.5, onProgress: blockOnce,
    });
    assert.deepEqual(summary.errors, []);
    assert.ok(summary.event_loop_delay_ms.max >= 250, `max ${summary.event_loop_delay_ms.max} ms`);
    assert.ok(summary.event_loop_delay_ms.p99 <= summary.event_loop_delay_ms.max);
    assert.equal(summary.event_loop_delay_ms.p99_by_minute.length, 1);
    // Not the block's 300 ms: on a crowded machine a busy wait gets a fraction of a core.
    assert.ok(summary.cpu_s > 0, `${summary.cpu_s} CPU seconds`);
  });

  it('gives each sensor a connection of its own, kept from one check-in to the next, as a real fleet holds them', async () => {
    let opened = 0;
    const count = () => opened++;
    test.app.server.on('connection', count);
    try {
      const summary = await simulate({ server: test.url, token: test.adminToken, seed: 'own-connections', sensors: 0, idleSensors: 20, durationS: 2, checkinIntervalS: 0.25 });
      assert.deepEqual(summary.errors, []);
      assert.ok(summary.checkins >= 20 * 4, `${summary.checkins} check-ins`);
      // One more: the install code's read.
      assert.equal(opened, 21, `${opened} connections for 20 sensors and ${summary.checkins} check-ins`);
    } finally {
      test.app.server.off('connection', count);
    }
  });
});
