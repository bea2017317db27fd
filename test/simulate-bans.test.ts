/**
 * Banning end to end: a hash the simulator runs is banned over the API, the simulated sensor
 * receives the ban list at check-in, blocks the program, and the ban counts the blocks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Endpoint } from '../src/sensor/endpoint.js';
import { simulate } from '../src/sensor/simulator.js';
import { as, startListeningTestApp, type ListeningTestApp } from './support/app.js';
import { mostStartedChildMd5 } from './support/simulated-programs.js';

const SEED = 'banning-e2e';

describe('banning with the simulator against a real server', () => {
  let test: ListeningTestApp;
  let server: string;
  before(async () => {
    test = await startListeningTestApp();
    server = test.url;
  });
  after(() => test.close());

  it('blocks a banned program on the sensor and counts the blocks on the ban', async () => {
    const md5 = mostStartedChildMd5(SEED);
    const banned = await test.app.inject({
      method: 'POST', url: '/api/v1/banning/blacklist', headers: as(test.adminToken), payload: { md5hash: md5, text: 'e2e' },
    });
    assert.equal(banned.statusCode, 200, banned.body);

    const summary = await simulate({
      server, token: test.adminToken, sensors: 1, seed: SEED, durationS: 3, rate: 2000, checkinIntervalS: 0.1, batchSize: 200,
    });
    assert.deepEqual(summary.errors, []);
    assert.equal(summary.events_acknowledged, summary.events_sent);

    const ban = (await test.app.inject({ url: `/api/v1/banning/blacklist/${md5}`, headers: as(test.adminToken) })).json();
    assert.ok(ban.block_count > 0, `block_count ${ban.block_count}`);
    assert.equal(ban.ban_count, ban.block_count);
    const hostname = new Endpoint({ seed: SEED, index: 0, startMs: 0 }).hostname.toLowerCase();
    assert.equal(ban.last_block_hostname, hostname);
    assert.match(ban.last_block_time, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{6})?\+00:00$/);
  });
});
