/**
 * Blocks reported through the real event upload: processblock events count on their ban, and
 * the latest block names its time and host.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, startTestApp, type TestApp } from '../../../test/support/app.js';
import { registerSensor, uploadEvents, type TestSensor } from '../../../test/support/sensors.js';
import { formatRecordTime } from '../../domain/record-time.js';

const URL = '/api/v1/banning/blacklist';
const BANNED = 'c'.repeat(32);
const T0 = Date.parse('2026-11-20T10:00:00.000Z');

function block(md5: string, ts: number, pid = 500) {
  return {
    type: 'processblock', ts, pid, process_start: T0 - 60_000, blocked_md5: md5,
    blocked_path: 'C:\\Users\\alice\\Downloads\\Invoice.exe', blocked_cmdline: 'Invoice.exe', blocked_username: 'CORP\\alice',
    block_type: 1, block_event: 1, block_result: 0, block_error: 0,
  };
}

describe('blocks reported by sensors', () => {
  let test: TestApp;
  let laptop: TestSensor;
  let server: TestSensor;
  before(async () => {
    test = await startTestApp();
    laptop = await registerSensor(test, { computer_name: 'WIN-LAPTOP-01' });
    server = await registerSensor(test, { computer_name: 'WIN-SRV-02' });
    const banned = await test.app.inject({ method: 'POST', url: URL, headers: as(test.adminToken), payload: { md5hash: BANNED, text: 'x' } });
    assert.equal(banned.statusCode, 200);
  });
  after(() => test.close());

  const read = async () => (await test.app.inject({ url: `${URL}/${BANNED}`, headers: as(test.adminToken) })).json();

  async function upload(sensor: TestSensor, sequence: number, events: unknown[]) {
    const reply = await uploadEvents(test, sensor, sequence, events);
    assert.equal(reply.statusCode, 200, reply.body);
    return reply.json() as { duplicate: boolean; accepted: number };
  }

  it('counts each processblock on the ban of its blocked_md5, whatever its case, with the latest time and host', async () => {
    await upload(laptop, 1, [block(BANNED, T0), block(BANNED.toUpperCase(), T0 + 5000), { type: 'process_end', ts: T0 + 6000, pid: 500, process_start: T0 - 60_000 }]);
    let ban = await read();
    assert.equal(ban.block_count, 2);
    assert.equal(ban.last_block_time, formatRecordTime(T0 + 5000));
    assert.equal(ban.last_block_sensor_id, laptop.id);
    assert.equal(ban.last_block_hostname, 'win-laptop-01');
    assert.deepEqual([ban.ban_count, ban.last_ban_time, ban.last_ban_host], [2, ban.last_block_time, 'win-laptop-01']);

    await upload(server, 1, [block(BANNED, T0 + 9000)]);
    ban = await read();
    assert.equal(ban.block_count, 3);
    assert.equal(ban.last_block_hostname, 'win-srv-02');
    assert.equal(ban.last_block_sensor_id, server.id);
  });

  it('keeps the latest block when an older one arrives late, and counts a retried batch once', async () => {
    const before = (await read()).block_count as number;
    const late = [block(BANNED, T0 - 3_600_000)];
    assert.equal((await upload(laptop, 2, late)).duplicate, false);
    assert.equal((await upload(laptop, 2, late)).duplicate, true);
    const ban = await read();
    assert.equal(ban.block_count, before + 1);
    assert.equal(ban.last_block_hostname, 'win-srv-02');
    assert.equal(ban.last_block_time, formatRecordTime(T0 + 9000));
  });

  it('stores the block events and ignores blocks of hashes that have no ban', async () => {
    const reply = await upload(laptop, 3, [block('d'.repeat(32), T0 + 10_000)]);
    assert.equal(reply.accepted, 1);
    const missing = await test.app.inject({ url: `${URL}/${'d'.repeat(32)}`, headers: as(test.adminToken) });
    assert.equal(missing.statusCode, 404);
    const counters = await test.app.inject({ url: `/api/v1/sensor/${laptop.id}/ingest`, headers: as(test.adminToken) });
    assert.equal(counters.json().events_accepted, 5);
  });
});
