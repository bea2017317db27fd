/** Check-ins' writes grouped into transactions, on real databases of each dialect. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachDialect } from '../../../test/support/dialects.js';
import { CheckinWrites, withUnwritten } from './checkin-writes.js';
import { SqlSensorsStore, type NewSensor, type SensorCheckin } from './sensors.store.js';

const SENSOR: NewSensor = {
  groupId: 1, secretHash: 'hash', osType: 'linux', hostType: 'server', registrationMs: 1000,
  computerName: 'web', computerDnsName: 'web', computerSid: '', osEnvironmentDisplayString: '', buildVersionString: '006.001.002.71109',
  buildId: 2, bootId: '9', networkAdapters: '', physicalMemorySize: 8, systemvolumeTotalSize: 100, systemvolumeFreeSize: 50,
};

forEachDialect((fresh) => {
  it('writes the check-ins that arrive while one is written together, in one transaction, answering each', async () => {
    const store = new SqlSensorsStore(await fresh());
    const ids: number[] = [];
    for (let i = 0; i < 40; i++) ids.push((await store.register(SENSOR)).id);
    const transactions: number[] = [];
    const writes = new CheckinWrites({
      checkin: (checkins: readonly SensorCheckin[]) => {
        transactions.push(checkins.length);
        return store.checkin(checkins);
      },
    });
    const recorded = await Promise.all([...ids, 9999].map((id, i) => writes.record(id, { clockDeltaMs: 0, lastCheckinMs: 5000 + i, nextCheckinMs: 35_000, uptime: i })));
    assert.deepEqual(recorded, [...ids.map(() => true), false]);
    assert.deepEqual(transactions, [1, 40], 'the first alone, the forty that came meanwhile together');
    for (const [i, id] of ids.entries()) assert.equal((await store.get(id))!.uptime, i);
  });

  it('fails the check-ins of a transaction that fails, and writes the next ones', async () => {
    const db = await fresh();
    const store = new SqlSensorsStore(db);
    const { id } = await store.register(SENSOR);
    let failNext = true;
    const writes = new CheckinWrites({
      checkin: async (checkins: readonly SensorCheckin[]) => {
        if (!failNext) return store.checkin(checkins);
        failNext = false;
        // A real failure of the database: the transaction meets a table that is not there.
        return db.transaction(async (tx) => (await tx.run('UPDATE no_such_table SET x = 1'), [] as boolean[]));
      },
    });
    await assert.rejects(writes.record(id, { clockDeltaMs: 0, lastCheckinMs: 5000, nextCheckinMs: 35_000 }));
    assert.equal(await writes.record(id, { clockDeltaMs: 0, lastCheckinMs: 6000, nextCheckinMs: 36_000 }), true);
    assert.equal((await store.get(id))!.lastCheckinMs, 6000);
  });

  it('writes check-ins nobody waits for together and in order, tells a failed transaction once, and written() waits for them', async () => {
    const db = await fresh();
    const store = new SqlSensorsStore(db);
    const { id } = await store.register(SENSOR);
    let failNext = true;
    const failures: unknown[] = [];
    const transactions: number[] = [];
    const writes = new CheckinWrites({
      checkin: async (checkins: readonly SensorCheckin[]) => {
        transactions.push(checkins.length);
        if (!failNext) return store.checkin(checkins);
        failNext = false;
        return db.transaction(async (tx) => (await tx.run('UPDATE no_such_table SET x = 1'), [] as boolean[]));
      },
    }, (error) => failures.push(error));
    for (let i = 1; i <= 4; i++) writes.recordUnwaited(id, { clockDeltaMs: 0, lastCheckinMs: 5000 + i, nextCheckinMs: 35_000, uptime: i });
    await writes.written();
    assert.deepEqual(failures.length, 1, 'the four shared one transaction, which failed, and it is told once');
    for (let i = 5; i <= 6; i++) writes.recordUnwaited(id, { clockDeltaMs: 0, lastCheckinMs: 5000 + i, nextCheckinMs: 35_000, uptime: i });
    await writes.written();
    assert.deepEqual(transactions, [4, 2]);
    assert.equal(failures.length, 1);
    const sensor = (await store.get(id))!;
    assert.deepEqual([sensor.lastCheckinMs, sensor.uptime], [5006, 6], 'the last one last');
  });

  it('gives the unwaited check-ins until they settle, and lays each over its row unless the row is newer', async () => {
    const store = new SqlSensorsStore(await fresh());
    const { id } = await store.register(SENSOR);
    const failing = (await store.register(SENSOR)).id;
    const writes = new CheckinWrites({
      checkin: (checkins: readonly SensorCheckin[]) => (checkins.some((c) => c.id === failing) ? Promise.reject(new Error('lost')) : store.checkin(checkins)),
    });
    const facts = { clockDeltaMs: 0, lastCheckinMs: 7000, nextCheckinMs: 37_000, uptime: 42, healthMessage: undefined };
    writes.recordUnwaited(id, facts);
    const unwritten = writes.unwritten();
    assert.deepEqual([...unwritten.keys()], [id]);
    const row = (await store.get(id))!;
    assert.equal(withUnwritten(row, unwritten.get(id)).uptime, 42);
    assert.equal(withUnwritten(row, unwritten.get(id)).healthMessage, row.healthMessage, 'a fact not sent leaves the row\'s');
    assert.equal(withUnwritten({ ...row, lastCheckinMs: 8000 }, unwritten.get(id)).uptime, row.uptime, 'a later check-in already written stays');
    await writes.written();
    assert.equal(writes.unwritten().size, 0);
    assert.equal((await store.get(id))!.uptime, 42);
    writes.recordUnwaited(failing, facts);
    await writes.written();
    assert.equal(writes.unwritten().size, 0, 'a failed write is not shown either');
  });
});
