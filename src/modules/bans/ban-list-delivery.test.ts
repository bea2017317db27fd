/**
 * Ban lists reaching sensors through the real check-in endpoint: every transition of a sensor's
 * ban list, as the sensor sees it in its check-in replies.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, startTestApp, type TestApp } from '../../../test/support/app.js';
import { registerSensor, type TestSensor } from '../../../test/support/sensors.js';
import type { BanListPayload } from './bans.schemas.js';

const URL = '/api/v1/banning/blacklist';
const md5 = (n: number) => n.toString(16).padStart(32, 'b');

interface BanListInstruction {
  id: number;
  payload: BanListPayload;
}

describe('ban lists at check-in', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp();
  });
  after(() => test.close());

  const admin = () => as(test.adminToken);

  async function ban(hash: string): Promise<void> {
    const reply = await test.app.inject({ method: 'POST', url: URL, headers: admin(), payload: { md5hash: hash, text: 'test' } });
    assert.equal(reply.statusCode, 200, reply.body);
  }

  async function unban(hash: string): Promise<void> {
    const reply = await test.app.inject({ method: 'DELETE', url: `${URL}/${hash}`, headers: admin() });
    assert.equal(reply.statusCode, 200, reply.body);
  }

  /** One check-in acknowledging `completed`; the ban_list instructions of the reply. */
  async function checkin(sensor: TestSensor, completed: number[] = []): Promise<BanListInstruction[]> {
    const reply = await test.app.inject({
      method: 'POST', url: '/sensor/v1/checkin', headers: sensor.headers,
      payload: { sensor_time: Date.now(), completed: completed.map((id) => ({ id })) },
    });
    assert.equal(reply.statusCode, 200, reply.body);
    const { instructions } = reply.json() as { instructions: { id: number; type: string; payload: BanListPayload }[] };
    return instructions.filter((i) => i.type === 'ban_list').map(({ id, payload }) => ({ id, payload }));
  }

  /** Checks in, expecting exactly one ban_list instruction, and returns it. */
  async function one(sensor: TestSensor, completed: number[] = []): Promise<BanListInstruction> {
    const instructions = await checkin(sensor, completed);
    assert.equal(instructions.length, 1, JSON.stringify(instructions));
    return instructions[0]!;
  }

  const hashes = (payload: BanListPayload) => ({
    added: payload.added.map((entry) => entry.md5).sort(),
    removed: [...payload.removed].sort(),
    full: payload.full,
  });

  it('sends nothing while nothing is banned, then the whole list, then only the changes, each once acknowledged', async () => {
    const sensor = await registerSensor(test);
    assert.deepEqual(await checkin(sensor), []);

    await ban(md5(1).toUpperCase());
    const first = await one(sensor);
    assert.deepEqual(hashes(first.payload), { added: [md5(1)], removed: [], full: true });

    // Unacknowledged, it comes again, and a change made meanwhile waits for the acknowledgement.
    await ban(md5(2));
    const repeated = await one(sensor);
    assert.deepEqual(repeated, first);

    const added = await one(sensor, [first.id]);
    assert.notEqual(added.id, first.id);
    assert.deepEqual(hashes(added.payload), { added: [md5(2)], removed: [], full: false });
    assert.ok(added.payload.version > first.payload.version);

    await unban(md5(1));
    const removed = await one(sensor, [added.id]);
    assert.deepEqual(hashes(removed.payload), { added: [], removed: [md5(1)], full: false });

    assert.deepEqual(await checkin(sensor, [removed.id]), [], 'in step: nothing to send');
    assert.deepEqual(await checkin(sensor), []);

    await ban(md5(1)); // re-enables the disabled ban
    const readded = await one(sensor);
    assert.deepEqual(hashes(readded.payload), { added: [md5(1)], removed: [], full: false });
    assert.deepEqual(await checkin(sensor, [readded.id]), []);
  });

  it('leaves the list alone when only a ban\'s text changes', async () => {
    const sensor = await registerSensor(test);
    const full = await one(sensor);
    assert.deepEqual(await checkin(sensor, [full.id]), []);
    const put = await test.app.inject({ method: 'PUT', url: `${URL}/${full.payload.added[0]!.md5}`, headers: admin(), payload: { text: 'reworded' } });
    assert.equal(put.statusCode, 200);
    assert.deepEqual(await checkin(sensor), []);
  });

  it('gives a new sensor, and one far behind, the whole list rather than the changes', async () => {
    const behind = await registerSensor(test);
    const first = await one(behind);
    const held = hashes(first.payload).added;
    assert.deepEqual(await checkin(behind, [first.id]), []);

    // Many bans come and go while the sensor is away: the changes outnumber the list.
    const transient = [10, 11, 12, 13, 14].map(md5);
    for (const hash of transient) await ban(hash);
    for (const hash of transient) await unban(hash);
    const caughtUp = await one(behind);
    assert.deepEqual(hashes(caughtUp.payload), { added: held, removed: [], full: true });

    const newcomer = await registerSensor(test);
    const initial = await one(newcomer);
    assert.deepEqual(hashes(initial.payload), { added: held, removed: [], full: true });
    assert.equal(initial.payload.version, caughtUp.payload.version);
  });

  it('skips sensors of groups that do not ban, and has them drop their bans when their group stops', async () => {
    const created = await test.app.inject({ method: 'POST', url: '/api/group', headers: admin(), payload: { name: 'no-banning', banning_enabled: false } });
    assert.equal(created.statusCode, 200, created.body);
    const groupId = created.json().id as number;
    const setBanning = async (enabled: boolean) => {
      const reply = await test.app.inject({ method: 'PUT', url: `/api/group/${groupId}`, headers: admin(), payload: { banning_enabled: enabled } });
      assert.equal(reply.statusCode, 200, reply.body);
    };

    const sensor = await registerSensor(test, {}, groupId);
    assert.deepEqual(await checkin(sensor), []);
    await ban(md5(20));
    assert.deepEqual(await checkin(sensor), []);

    await setBanning(true);
    const full = await one(sensor);
    assert.equal(full.payload.full, true);
    assert.ok(hashes(full.payload).added.includes(md5(20)));

    await setBanning(false);
    const drop = await one(sensor, [full.id]);
    assert.deepEqual(drop.payload, { version: 0, added: [], removed: [], full: true });
    assert.deepEqual(await checkin(sensor, [drop.id]), []);
    await ban(md5(21));
    assert.deepEqual(await checkin(sensor), []);

    await setBanning(true);
    const again = await one(sensor);
    assert.equal(again.payload.full, true);
    assert.ok(hashes(again.payload).added.includes(md5(21)));
  });
});
