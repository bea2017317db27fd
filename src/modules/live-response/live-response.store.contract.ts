/** The contract of LiveResponseStore, run against every dialect (live-response.store.test.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import { SqlSensorsStore } from '../sensors/sensors.store.js';
import { TIMED_OUT } from './live-response-commands.js';
import { SqlLiveResponseStore, type ExpiryLimits } from './live-response.store.js';

const LIMITS: ExpiryLimits = { checkinTimeoutMs: 1000, sessionTimeoutMs: 500, commandTimeoutMs: 200 };
const FACTS = { supportedCommands: ['process list', 'get file'], drives: ['C:\\'], currentWorkingDirectory: 'C:\\' };
const DONE = { resultCode: 0, resultType: 'WinHresult', resultDesc: '', output: { processes: [] } };

async function setUp(fresh: () => Promise<SqlDatabase>) {
  const db = await fresh();
  const sensors = new SqlSensorsStore(db);
  const register = () => sensors.register({
    groupId: 1, secretHash: 'h', osType: 'windows', hostType: 'workstation', registrationMs: 0, computerName: 'WIN-1',
    computerDnsName: 'win-1', computerSid: '', osEnvironmentDisplayString: '', buildVersionString: '006.001.002.71109', buildId: 1,
    bootId: '1', networkAdapters: '', physicalMemorySize: 0, systemvolumeTotalSize: 0, systemvolumeFreeSize: 0,
  });
  return { store: new SqlLiveResponseStore(db), sensor: (await register()).id, other: (await register()).id };
}

const by = { userId: 1, username: 'admin' };

export function liveResponseStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('keeps one open session per sensor and attaches it once', async () => {
    const { store, sensor, other } = await setUp(fresh);
    const first = await store.openSession({ sensorId: sensor, ...by, nowMs: 10 });
    assert.equal(first.created, true);
    assert.deepEqual([first.session.status, first.session.createdMs, first.session.attach, first.session.storageBytes], ['pending', 10, null, 0]);
    const again = await store.openSession({ sensorId: sensor, ...by, nowMs: 20 });
    assert.deepEqual([again.created, again.session.id], [false, first.session.id]);
    assert.notEqual((await store.openSession({ sensorId: other, ...by, nowMs: 20 })).session.id, first.session.id);

    await store.setSessionInstruction(first.session.id, 77);
    assert.equal(await store.attach(first.session.id, FACTS, 30), true);
    assert.equal(await store.attach(first.session.id, FACTS, 40), false, 'only a pending session attaches');
    const active = (await store.getSession(first.session.id))!;
    assert.deepEqual([active.status, active.attach, active.attachedMs, active.instructionId, active.sensorSeenMs], ['active', FACTS, 30, 77, 30]);
    assert.deepEqual((await store.openSessionsOf(sensor)).map((s) => s.id), [first.session.id]);
    assert.equal((await store.listSessions(true)).length, 2);
  });

  it('ends a session once, cancelling its pending commands on close, and answers the instructions to withdraw', async () => {
    const { store, sensor } = await setUp(fresh);
    const { session } = await store.openSession({ sensorId: sensor, ...by, nowMs: 0 });
    await store.setSessionInstruction(session.id, 5);
    await store.attach(session.id, FACTS, 1);
    const pending = await store.createCommand({ sessionId: session.id, sensorId: sensor, name: 'process list', request: { options: {} }, username: 'admin', fileId: null, nowMs: 2 });
    const finished = await store.createCommand({ sessionId: session.id, sensorId: sensor, name: 'process list', request: { options: {} }, username: 'admin', fileId: null, nowMs: 2 });
    await store.setCommandInstruction(pending.id, 6);
    await store.setCommandInstruction(finished.id, 7);
    assert.equal(await store.finishCommand(finished.id, 'complete', DONE, 3), true);
    assert.equal(await store.finishCommand(finished.id, 'error', TIMED_OUT, 4), false, 'finished once');

    assert.deepEqual((await store.endSession(session.id, 'close', 10))?.sort(), [5, 6]);
    assert.equal(await store.endSession(session.id, 'close', 11), undefined);
    const closed = (await store.getSession(session.id))!;
    assert.deepEqual([closed.status, closed.endedMs], ['close', 10]);
    const commands = await store.listCommands(session.id);
    assert.deepEqual(commands.map((c) => [c.status, c.outcome?.resultCode ?? null]), [['cancel', null], ['complete', 0]]);
    assert.deepEqual(await store.openSessionsOf(sensor), []);
  });

  it('times out pending sessions, silent or idle active ones, and late commands, of one sensor or all', async () => {
    const { store, sensor, other } = await setUp(fresh);
    const pending = (await store.openSession({ sensorId: sensor, ...by, nowMs: 0 })).session;
    await store.setSessionInstruction(pending.id, 1);
    const idle = (await store.openSession({ sensorId: other, ...by, nowMs: 0 })).session;
    await store.attach(idle.id, FACTS, 100);
    const command = await store.createCommand({ sessionId: idle.id, sensorId: other, name: 'process list', request: { options: {} }, username: 'admin', fileId: null, nowMs: 50 });
    await store.setCommandInstruction(command.id, 2);

    assert.deepEqual(await store.expire(250, LIMITS), [], 'a command\'s time starts when its session attached');
    assert.deepEqual(await store.expire(300, LIMITS), [2]);
    assert.deepEqual((await store.getCommand(idle.id, command.id))!.outcome, TIMED_OUT);
    await store.touch(idle.id, 900);
    await store.sensorSeen(other, 900);
    assert.deepEqual(await store.expire(1000, LIMITS, other), [], 'only the sensor asked about, whose session is in use');
    assert.equal((await store.getSession(pending.id))!.status, 'pending');
    assert.deepEqual(await store.expire(1000, LIMITS), [1], 'the pending session, not the used one');
    assert.equal((await store.getSession(pending.id))!.status, 'timeout');
    assert.equal((await store.getSession(idle.id))!.status, 'active');
    await store.expire(1400, LIMITS);
    assert.equal((await store.getSession(idle.id))!.status, 'timeout', 'idle for the session timeout');
  });

  it('finds a sensor\'s pending commands by their instructions, and no other sensor\'s', async () => {
    const { store, sensor, other } = await setUp(fresh);
    const { session } = await store.openSession({ sensorId: sensor, ...by, nowMs: 0 });
    const command = await store.createCommand({ sessionId: session.id, sensorId: sensor, name: 'kill', request: { object: 42, options: {} }, username: 'admin', fileId: null, nowMs: 1 });
    await store.setCommandInstruction(command.id, 9);
    assert.deepEqual((await store.pendingCommandsByInstruction(sensor, [8, 9])).map((c) => [c.id, c.request.object]), [[command.id, 42]]);
    assert.deepEqual(await store.pendingCommandsByInstruction(other, [9]), []);
    assert.deepEqual(await store.pendingCommandsByInstruction(sensor, []), []);
  });

  it('keeps files with their session, in transit only while their command is pending, and drops old ones', async () => {
    const { store, sensor, other } = await setUp(fresh);
    const { session } = await store.openSession({ sensorId: sensor, ...by, nowMs: 0 });
    const fetch = await store.createCommand(
      { sessionId: session.id, sensorId: sensor, name: 'get file', request: { object: 'C:\\a.txt', options: {} }, username: 'admin', fileId: null, nowMs: 5 },
      'C:\\a.txt',
    );
    assert.equal(typeof fetch.fileId, 'number');
    const file = (await store.getFile(session.id, fetch.fileId!))!;
    assert.deepEqual([file.fileName, file.size, file.createdMs], ['C:\\a.txt', null, 5]);
    assert.equal((await store.fileInTransit(sensor, file.id))?.command.id, fetch.id);
    assert.equal(await store.fileInTransit(other, file.id), undefined);
    await store.fileArrived(file.id, 1234);
    const uploaded = await store.createFile(session.id, 'tool.bat', 50);
    await store.fileArrived(uploaded.id, 6);
    assert.equal((await store.getSession(session.id))!.storageBytes, 1240);
    assert.deepEqual((await store.listFiles(session.id)).map((f) => f.size), [1234, 6]);
    await store.finishCommand(fetch.id, 'complete', DONE, 60);
    assert.equal(await store.fileInTransit(sensor, file.id), undefined);

    assert.deepEqual(await store.dropFilesCreatedBefore(50), [file.id]);
    assert.deepEqual((await store.listFiles(session.id)).map((f) => f.id), [uploaded.id]);
  });
}
