/**
 * The forwarder's store and its keyed sources, run against every dialect
 * (forwarder.store.test.ts): outputs and cursors, reads in key order that stop at the horizon, and
 * an output's turn, batch after batch with the next read ahead, whose failed delivery leaves the
 * cursor after the last batch delivered (the batch read ahead is sent again, not skipped).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { it } from 'node:test';
import { tempDir } from '../../../test/support/temp.js';
import type { SqlDatabase } from '../../db/database.js';
import { ConflictError } from '../../domain/errors.js';
import { sqlSources } from './forwarder-sources.js';
import { OutputTurns } from './forwarder-turns.js';
import { SqlForwarderStore } from './forwarder.store.js';

const ORIGIN = { serverName: 'vigil-test', version: '1.0.0' };
const FILE_OUTPUT = { name: 'archive', enabled: true, kind: 'file', format: 'json', settings: { path: '/tmp/a.json' }, sources: { events_alert: true } };

export async function addAlert(db: SqlDatabase, id: number, createdMs: number): Promise<void> {
  await db.run(
    `INSERT INTO alerts (id, unique_id, alert_type, created_ms, watchlist_id, watchlist_name, feed_id, feed_name, report_score,
       feed_rating, sensor_criticality, ioc_confidence, alert_severity, ioc_type, ioc_value, ioc_attr, total_hosts, hostname, md5)
     VALUES (?, ?, 'watchlist.hit.query.process', ?, '7', 'Shells', -1, 'My Watchlists', 75, 3, 1, 0.5, 40.5, 'query', '{}', '{}', 1, 'host-a', 'ad7b9c14083b52bc532fba5948342b98')`,
    [id, `alert-${id}`, createdMs],
  );
}

/** cb-event-forwarder's plain HTTP receiver that answers its `failing` request (1-based; none by default) with 503. */
export async function startReceiver(failing = 0): Promise<{ url: string; received: string[]; close(): void }> {
  const received: string[] = [];
  let requests = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (++requests === failing) {
        res.writeHead(503).end('busy');
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { alerts: { unique_id: string }[] };
      received.push(...body.alerts.map((alert) => alert.unique_id));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, received, close: () => server.close() };
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

  it('moves the cursor batch by batch, and after a failed delivery sends from the last batch delivered', async () => {
    const db = await fresh();
    const store = new SqlForwarderStore(db);
    const receiver = await startReceiver(2);
    for (let id = 1; id <= 5; id++) await addAlert(db, id, 1000 + id);
    const output = await store.create({ name: 'soar', enabled: true, kind: 'http', format: 'json', settings: { url: receiver.url }, sources: { events_alert: true } }, 0);
    const sources = { sql: sqlSources(db, ORIGIN, 30_000), raw: { only: () => assert.fail('no raw events were asked for') } };
    const turns = new OutputTurns(store, sources, { batchSize: 2, horizonMs: 0, fileDir: tempDir(), maxBusyShare: 1, now: () => 10_000 });
    try {
      await assert.rejects(turns.turn(output), /answered 503/);
      assert.deepEqual(receiver.received, ['alert-1', 'alert-2']);
      const [cursor] = await store.cursors(output.id);
      assert.deepEqual(cursor!.position, [1002, 2], 'the cursor stays after the batch delivered');
      assert.match(cursor!.lastError!, /answered 503/);
      assert.equal(await turns.turn(output), true);
      assert.deepEqual(receiver.received, ['alert-1', 'alert-2', 'alert-3', 'alert-4', 'alert-5'], 'every alert once, in order');
      assert.deepEqual((await store.cursors(output.id))[0]!.position, [1005, 5]);
      assert.equal(await turns.turn(output), false, 'nothing more to read');
    } finally {
      await turns.close();
      receiver.close();
    }
  });
}
