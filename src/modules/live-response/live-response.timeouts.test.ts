/**
 * Live-response time limits through the real API and check-in endpoint, on a server whose limits
 * are a second or two: a sensor that never checks in, one that goes silent, a command never
 * answered, a client gone idle, and keepalive.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../../test/support/app.js';
import { activeSession, deliveredCommand, instructionsOfType, lr, SESSION } from '../../../test/support/live-response.js';
import { checkin, registerSensor } from '../../../test/support/sensors.js';

/** HRESULT_FROM_WIN32(ERROR_TIMEOUT). */
const TIMED_OUT = 0x800705b4;

describe('live-response time limits', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp({
      liveResponseCheckinTimeoutSeconds: 2, liveResponseSessionTimeoutSeconds: 2, liveResponseCommandTimeoutSeconds: 1,
    });
  });
  after(() => test.close());

  it('times out a session whose sensor never checks in: 404, as cbapi expects, and the sensor never hears of it', async () => {
    const sensor = await registerSensor(test);
    const session = (await lr(test, 'POST', SESSION, { sensor_id: sensor.id })).json();
    const queued = await lr(test, 'POST', `${SESSION}/${session.id}/command`, { name: 'process list' });
    assert.equal(queued.statusCode, 200, 'commands may be queued while the session is pending');
    await sleep(2_100);

    const read = await lr(test, 'GET', `${SESSION}/${session.id}`);
    assert.equal(read.statusCode, 404);
    assert.match(read.body, /^Session \d+ timed out/);
    const listed = ((await lr(test, 'GET', SESSION)).json() as { id: number; status: string }[]).find((s) => s.id === session.id);
    assert.equal(listed?.status, 'timeout');
    assert.ok(!((await lr(test, 'GET', `${SESSION}?active_only=true`)).json() as { id: number }[]).some((s) => s.id === session.id));
    const command = (await lr(test, 'GET', `${SESSION}/${session.id}/command/${queued.json().id}`)).json();
    assert.deepEqual([command.status, command.result_code], ['error', TIMED_OUT]);

    const late = await checkin(test, sensor);
    assert.deepEqual(late.instructions, [], 'neither the session nor its command reaches the sensor');
    const fresh = (await lr(test, 'POST', SESSION, { sensor_id: sensor.id })).json();
    assert.notEqual(fresh.id, session.id, 'a new session can be opened');
  });

  it('ends a command the sensor received but never answered in error, and ignores a late answer', async () => {
    const sensor = await registerSensor(test);
    const sessionId = await activeSession(test, sensor);
    const { command, instruction } = await deliveredCommand(test, sensor, sessionId, { name: 'process list' });
    await sleep(1_100);
    const read = (await lr(test, 'GET', `${SESSION}/${sessionId}/command/${command.id}`)).json();
    assert.deepEqual([read.status, read.result_code, read.result_type], ['error', TIMED_OUT, 'WinHresult']);
    const again = await instructionsOfType(test, sensor, 'live_response', { completed: [{ id: instruction.id, result: { status: 'complete', processes: [] } }] });
    assert.deepEqual(again.instructions, [], 'withdrawn');
    assert.equal((await lr(test, 'GET', `${SESSION}/${sessionId}/command/${command.id}`)).json().status, 'error');
    assert.equal((await lr(test, 'GET', `${SESSION}/${sessionId}`)).json().status, 'active', 'the session goes on');
  });

  it('answers a waiting read when the command times out', async () => {
    const sensor = await registerSensor(test);
    const sessionId = await activeSession(test, sensor);
    const { command } = await deliveredCommand(test, sensor, sessionId, { name: 'process list' });
    const read = (await lr(test, 'GET', `${SESSION}/${sessionId}/command/${command.id}?wait=true`)).json();
    assert.deepEqual([read.status, read.result_code], ['error', TIMED_OUT]);
  });

  it('keeps an idle session alive with keepalive, and times it out once the client stops', async () => {
    const sensor = await registerSensor(test);
    const sessionId = await activeSession(test, sensor);
    for (let i = 0; i < 4; i++) {
      await sleep(700);
      const alive = await lr(test, 'GET', `${SESSION}/${sessionId}/keepalive`);
      assert.equal(alive.statusCode, 200, alive.body);
      assert.equal(alive.json().status, 'active');
      await checkin(test, sensor);
    }
    await sleep(1_200);
    await checkin(test, sensor);
    await sleep(900);
    const gone = await lr(test, 'GET', `${SESSION}/${sessionId}/keepalive`);
    assert.equal(gone.statusCode, 404);
    assert.match(gone.body, /^Session \d+ timed out/);
    assert.equal((await checkin(test, sensor)).next_checkin_seconds, test.config.checkinIntervalSeconds);
  });

  it('times out an active session whose sensor goes silent, even while the client polls it', async () => {
    const sensor = await registerSensor(test);
    const sessionId = await activeSession(test, sensor);
    for (let i = 0; i < 5; i++) {
      await sleep(500);
      const read = await lr(test, 'GET', `${SESSION}/${sessionId}`);
      if (i < 3) assert.equal(read.json().status, 'active');
    }
    assert.equal((await lr(test, 'GET', `${SESSION}/${sessionId}`)).statusCode, 404);
  });
});
