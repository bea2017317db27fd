/** The contract of SysmonHostsStore, run against every dialect (sysmon-hosts.store.test.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import { SqlSensorsStore } from '../sensors/sensors.store.js';
import { SqlSysmonHostsStore } from './sysmon-hosts.store.js';

async function sysmonSensor(db: SqlDatabase, computerName: string): Promise<number> {
  const sensor = await new SqlSensorsStore(db).register({
    groupId: 1, agent: 'sysmon', secretHash: '', osType: 'windows', hostType: 'workstation', registrationMs: 1, computerName,
    computerDnsName: computerName, computerSid: '', osEnvironmentDisplayString: 'Windows (Sysmon)', buildVersionString: 'Sysmon',
    buildId: 0, bootId: '0', networkAdapters: '', physicalMemorySize: 0, systemvolumeTotalSize: 0, systemvolumeFreeSize: 0,
  });
  assert.equal(sensor.agent, 'sysmon');
  return sensor.id;
}

export function sysmonHostsStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('links a host to one sensor per group, the first link winning', async () => {
    const db = await fresh();
    const hosts = new SqlSysmonHostsStore(db);
    const [first, second] = [await sysmonSensor(db, 'WS5'), await sysmonSensor(db, 'WS5-again')];
    assert.equal(await hosts.sensorOf(1, 'ws5'), undefined);
    assert.equal(await hosts.link(1, 'ws5', first), true);
    assert.equal(await hosts.link(1, 'ws5', second), false, 'another request was first');
    assert.equal(await hosts.sensorOf(1, 'ws5'), first);
    assert.equal(await hosts.sensorOf(2, 'ws5'), undefined, 'per group');
  });

  it('remembers stored batches per group', async () => {
    const hosts = new SqlSysmonHostsStore(await fresh());
    assert.equal(await hosts.batchStored(1, 'abc'), false);
    await hosts.recordBatch(1, 'abc', 10);
    await hosts.recordBatch(1, 'abc', 20);
    assert.equal(await hosts.batchStored(1, 'abc'), true);
    assert.equal(await hosts.batchStored(2, 'abc'), false);
  });
}
