/**
 * When a check-in is answered (ADR 0037): a plain heartbeat before its row is written, one that
 * changes the sensor's state only once written. The write lock (SQLite) or the sensor's row lock
 * (PostgreSQL) is held by another connection meanwhile, as the event writer's commits hold it.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, it } from 'node:test';
import { as, openAppDatabase, startTestApp, type TestApp } from '../../../test/support/app.js';
import { checkin, registerSensor, type TestSensor } from '../../../test/support/sensors.js';

let test: TestApp;
before(async () => {
  test = await startTestApp();
});
after(() => test.close());

/** Holds what a write to the sensor's row needs until `release` is called. */
async function holdSensorRow(sensor: TestSensor): Promise<{ release: () => Promise<void> }> {
  const db = openAppDatabase(test);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const holding = db.transaction(async (tx) => {
    await tx.run('UPDATE sensors SET notes = notes WHERE id = ?', [sensor.id]);
    locked();
    await released;
  });
  await isLocked;
  return {
    release: async () => {
      release();
      await holding;
      await db.close();
    },
  };
}

it('answers a plain heartbeat while its row cannot be written yet, and shows it to the analyst once written', async () => {
  const sensor = await registerSensor(test);
  await checkin(test, sensor);
  const lock = await holdSensorRow(sensor);
  try {
    const reply = await checkin(test, sensor, { uptime: 777 });
    assert.equal(reply.instructions.length, 0);
  } finally {
    await lock.release();
  }
  const record = (await test.app.inject({ url: `/api/v1/sensor/${sensor.id}`, headers: as(test.adminToken) })).json();
  assert.equal(record.uptime, '777');
});

it('lists a heartbeat answered but not yet written with its facts, without waiting for its write', async () => {
  const sensor = await registerSensor(test);
  await checkin(test, sensor);
  const lock = await holdSensorRow(sensor);
  try {
    await checkin(test, sensor, { uptime: 888 });
    const listing = test.app.inject({ url: '/api/v1/sensor', headers: as(test.adminToken) });
    const listed = await Promise.race([listing, sleep(3_000).then(() => undefined)]);
    assert.ok(listed, 'the list waited for the heartbeat\'s write');
    assert.equal(listed.statusCode, 200, listed.body);
    const row = listed.json<{ id: number; uptime: string }[]>().find((s) => s.id === sensor.id);
    assert.equal(row?.uptime, '888');
  } finally {
    await lock.release();
  }
});

it('answers a check-in that changes the sensor\'s state, or its first, only once it is written', async () => {
  for (const [name, before, body] of [
    ['first check-in', false, {}],
    ['isolation confirmed', true, { is_isolating: true }],
  ] as const) {
    const sensor = await registerSensor(test);
    if (before) await checkin(test, sensor);
    const lock = await holdSensorRow(sensor);
    let answered = false;
    const reply = checkin(test, sensor, body).then(() => (answered = true));
    await sleep(300);
    assert.equal(answered, false, `${name}: answered before it was written`);
    await lock.release();
    await reply;
    const record = (await test.app.inject({ url: `/api/v1/sensor/${sensor.id}`, headers: as(test.adminToken) })).json();
    assert.equal(record.is_isolating, body.is_isolating ?? false, name);
  }
});
