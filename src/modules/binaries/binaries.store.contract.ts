/** The contract of BinariesStore, run against every dialect (binaries.store.test.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import { SqlSensorsStore } from '../sensors/sensors.store.js';
import { SqlBinariesStore } from './binaries.store.js';

const MD5 = 'AB'.repeat(16);

async function registerSensor(db: SqlDatabase, computerName: string): Promise<number> {
  const sensor = await new SqlSensorsStore(db).register({
    groupId: 1, secretHash: 'hash', osType: 'windows', hostType: 'workstation', registrationMs: 1, computerName,
    computerDnsName: '', computerSid: '', osEnvironmentDisplayString: '', buildVersionString: '006.001.002.71109',
    buildId: 0, bootId: '1', networkAdapters: '', physicalMemorySize: 0, systemvolumeTotalSize: 0, systemvolumeFreeSize: 0,
  });
  return sensor.id;
}

export function binariesStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('keeps the first metadata, refreshes last-seen, and records each observation once', async () => {
    const db = await fresh();
    const binaries = new SqlBinariesStore(db);
    const known = await registerSensor(db, 'WIN-A');
    const unknown = known + 1;
    const metadata = { md5: MD5, size: 10, observed_filename: 'C:\\A\\Tool.exe', company_name: 'First' };
    await binaries.record(metadata, undefined, known, 100);
    await binaries.record({ ...metadata, company_name: 'Second' }, 10, known, 200);
    await binaries.record({ ...metadata, observed_filename: 'D:\\tool.exe' }, undefined, unknown, 300);
    const record = await binaries.get(MD5.toLowerCase());
    assert.equal(record?.md5, MD5.toLowerCase(), 'md5s are kept lowercase');
    assert.equal(record?.metadata.company_name, 'First');
    assert.equal(record?.storedSize, 10, 'content stored by a later upload counts');
    assert.equal(record?.firstSeenMs, 100);
    assert.equal(record?.lastSeenMs, 300);
    assert.deepEqual(await binaries.observations(MD5), [
      {
        sensorId: known, observedFilename: 'c:\\a\\tool.exe', lastSeenMs: 200,
        sensor: { hostname: 'WIN-A', osType: 'windows', groupId: 1, groupName: 'Default Group' },
      },
      { sensorId: unknown, observedFilename: 'd:\\tool.exe', lastSeenMs: 300, sensor: undefined },
    ]);
    assert.equal(await binaries.get('0'.repeat(32)), undefined);
  });
  it('records the files a sensor saw, without content, as single uploads would', async () => {
    const db = await fresh();
    const binaries = new SqlBinariesStore(db);
    const sensor = await registerSensor(db, 'WIN-SEEN');
    const other = 'CD'.repeat(16);
    await binaries.recordSeen([
      { md5: MD5, size: 0, observed_filename: 'C:\\Windows\\System32\\comsvcs.dll', company_name: 'Microsoft Corporation' },
      { md5: other, size: 0, observed_filename: 'C:\\Tools\\x.exe' },
    ], sensor, 500);
    await binaries.recordSeen([], sensor, 600);
    assert.equal((await binaries.get(MD5))?.metadata.company_name, 'Microsoft Corporation');
    assert.equal((await binaries.get(MD5))?.storedSize, 0, 'no content');
    assert.deepEqual((await binaries.observations(other)).map((o) => [o.sensorId, o.observedFilename, o.lastSeenMs]), [[sensor, 'c:\\tools\\x.exe', 500]]);
  });
}
