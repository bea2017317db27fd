/**
 * The forwarder's store and its keyed sources, run against every dialect
 * (forwarder.store.test.ts): outputs and cursors, and reads in key order that stop at the horizon.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import { ConflictError } from '../../domain/errors.js';
import { sqlSources } from './forwarder-sources.js';
import { SqlForwarderStore } from './forwarder.store.js';

const ORIGIN = { serverName: 'vigil-test', version: '1.0.0' };
const FILE_OUTPUT = { name: 'archive', enabled: true, kind: 'file', format: 'json', settings: { path: '/tmp/a.json' }, sources: { events_alert: true } };

async function addAlert(db: SqlDatabase, id: number, createdMs: number): Promise<void> {
  await db.run(
    `INSERT INTO alerts (id, unique_id, alert_type, created_ms, watchlist_id, watchlist_name, feed_id, feed_name, report_score,
       feed_rating, sensor_criticality, ioc_confidence, alert_severity, ioc_type, ioc_value, ioc_attr, total_hosts, hostname, md5)
     VALUES (?, ?, 'watchlist.hit.query.process', ?, '7', 'Shells', -1, 'My Watchlists', 75, 3, 1, 0.5, 40.5, 'query', '{}', '{}', 1, 'host-a', 'ad7b9c14083b52bc532fba5948342b98')`,
    [id, `alert-${id}`, createdMs],
  );
}

export function forwarderStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('keeps outputs under unique names, and removes their cursors with them', async () => {
    const db = await fresh();
    const store = new SqlForwarderStore(db);
    const output = await store.create(FILE_OUTPUT, 1000);
    assert.deepEqual(await store.get(output.id), { ...FILE_OUTPUT, id: output.id, createdMs: 1000, updatedMs: 1000 });
    await assert.rejects(store.create(FILE_OUTPUT, 1001), ConflictError);
    assert.equal(await store.update(output.id, { ...FILE_OUTPUT, enabled: false }, 2000), true);
    assert.equal((await store.get(output.id))!.enabled, false);
    assert.equal(await store.update(output.id + 100, FILE_OUTPUT, 2000), false);
    await store.advance(output.id, 'alert', [1500, 3], 2, 2100);
    assert.equal((await store.cursors(output.id)).length, 1);
    assert.equal(await store.remove(output.id), true);
    assert.deepEqual(await store.list(), []);
    const again = await store.create(FILE_OUTPUT, 3000);
    assert.deepEqual(await store.cursors(again.id), []);
  });

  it('moves a cursor on delivery, keeps it on failure, and reports the last error until the next success', async () => {
    const db = await fresh();
    const store = new SqlForwarderStore(db);
    const { id } = await store.create(FILE_OUTPUT, 1000);
    await store.failed(id, 'raw', [1000, -1, -1], 'HTTP receiver answered 503', 1100);
    assert.deepEqual(await store.cursors(id), [{ source: 'raw', position: [1000, -1, -1], forwarded: 0, lastSuccessMs: null, lastError: 'HTTP receiver answered 503', lastErrorMs: 1100 }]);
    await store.advance(id, 'raw', [1200, 5, 0], 40, 1300);
    await store.failed(id, 'raw', [1200, 5, 0], 'connect ECONNREFUSED', 1400);
    assert.deepEqual(await store.cursors(id), [{ source: 'raw', position: [1200, 5, 0], forwarded: 40, lastSuccessMs: 1300, lastError: 'connect ECONNREFUSED', lastErrorMs: 1400 }]);
    await store.advance(id, 'raw', [1500, 6, 2], 10, 1600);
    assert.deepEqual(await store.cursors(id), [{ source: 'raw', position: [1500, 6, 2], forwarded: 50, lastSuccessMs: 1600, lastError: null, lastErrorMs: null }]);
  });

  it('reads alerts after a cursor in key order, in batches, and none newer than the horizon', async () => {
    const db = await fresh();
    const { alert } = sqlSources(db, ORIGIN, 30_000);
    await addAlert(db, 1, 5000);
    await addAlert(db, 2, 5000);
    await addAlert(db, 3, 6000);
    await addAlert(db, 4, 9000);
    const first = await alert.read(alert.start(5000), 8000, 2);
    assert.deepEqual(first!.records.map((r) => r.unique_id), ['alert-1', 'alert-2']);
    assert.deepEqual(first!.last, [5000, 2]);
    const second = await alert.read(first!.last, 8000, 2);
    assert.deepEqual(second!.records.map((r) => r.unique_id), ['alert-3'], 'alert 4 is past the horizon');
    assert.equal(await alert.read(second!.last, 8000, 2), undefined);
    assert.deepEqual((await alert.read(second!.last, 9000, 2))!.records.map((r) => r.unique_id), ['alert-4']);
    assert.equal(await alert.newestMs(), 9000);
    assert.deepEqual(await alert.read(alert.start(5001), 10_000, 10).then((b) => b!.records.map((r) => r.unique_id)), ['alert-3', 'alert-4']);
    const record = first!.records[0]!;
    assert.equal(record.type, 'alert.watchlist.hit.query.process');
    assert.equal(record.timestamp, 5);
    assert.equal(record.md5, 'AD7B9C14083B52BC532FBA5948342B98');
    assert.equal(record.computer_name, 'host-a');
    assert.equal(record.status, 'Unresolved');
  });
}
