/** The contract of BinariesStore, run against every dialect (binaries.store.test.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import { SqlBinariesStore } from './binaries.store.js';

const MD5 = 'AB'.repeat(16);

export function binariesStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('keeps the first metadata, refreshes last-seen, and records each observation once', async () => {
    const binaries = new SqlBinariesStore(await fresh());
    const metadata = { md5: MD5, size: 10, observed_filename: 'C:\\A\\Tool.exe', company_name: 'First' };
    await binaries.record(metadata, undefined, 1, 100);
    await binaries.record({ ...metadata, company_name: 'Second' }, 10, 1, 200);
    await binaries.record({ ...metadata, observed_filename: 'D:\\tool.exe' }, undefined, 2, 300);
    const record = await binaries.get(MD5.toLowerCase());
    assert.equal(record?.md5, MD5.toLowerCase(), 'md5s are kept lowercase');
    assert.equal(record?.metadata.company_name, 'First');
    assert.equal(record?.storedSize, 10, 'content stored by a later upload counts');
    assert.equal(record?.firstSeenMs, 100);
    assert.equal(record?.lastSeenMs, 300);
    assert.deepEqual(await binaries.observations(MD5), [
      { sensorId: 1, observedFilename: 'c:\\a\\tool.exe', lastSeenMs: 200 },
      { sensorId: 2, observedFilename: 'd:\\tool.exe', lastSeenMs: 300 },
    ]);
    assert.equal(await binaries.get('0'.repeat(32)), undefined);
  });
}
