/**
 * When the database's write lock stays taken past the server's wait (here another process's
 * connection holds it), a write is answered 503 with Retry-After in the Carbon Black error shape,
 * not 500, and nothing of it is done; the simulator's sensors register and check in through it.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { SQLITE_FILE } from '../src/db/open.js';
import { SensorClient } from '../src/sensor/client.js';
import { simulate } from '../src/sensor/simulator.js';
import { as, startListeningTestApp, type ListeningTestApp } from './support/app.js';
import { hostFacts } from './support/sensors.js';

describe('writes while another process holds the write lock past the server\'s wait', () => {
  let test: ListeningTestApp;
  let other: Database.Database;
  before(async () => {
    test = await startListeningTestApp({ databaseLockWaitMs: 100 });
    other = new Database(join(test.config.dataDir, SQLITE_FILE));
  });
  after(async () => {
    if (other.inTransaction) other.exec('ROLLBACK');
    other.close();
    await test.close();
  });

  /** Takes the lock in `other` and gives it back after `ms`. */
  function holdLockFor(ms: number): { release: () => void } {
    other.exec('BEGIN IMMEDIATE');
    const timer = setTimeout(() => other.exec('COMMIT'), ms);
    return {
      release() {
        clearTimeout(timer);
        if (other.inTransaction) other.exec('COMMIT');
      },
    };
  }

  const sensorCount = async () => (await test.app.inject({ url: '/api/v1/sensor', headers: as(test.adminToken) })).json().length as number;

  it('answers 503 with Retry-After and a JSON reason, having done nothing', async () => {
    const held = holdLockFor(60_000);
    const busy = await test.app.inject({ method: 'POST', url: '/api/site', headers: as(test.adminToken), payload: { id: null, name: 'Busy' } });
    held.release();
    assert.equal(busy.statusCode, 503, busy.body);
    assert.equal(busy.headers['retry-after'], '2');
    assert.equal(busy.json().reason, 'database_busy');
    const sites = await test.app.inject({ url: '/api/site', headers: as(test.adminToken) });
    assert.deepEqual(sites.json().map((site: { name: string }) => site.name), ['Default Site']);
    const again = await test.app.inject({ method: 'POST', url: '/api/site', headers: as(test.adminToken), payload: { id: null, name: 'Busy' } });
    assert.equal(again.statusCode, 200, again.body);
  });

  it('a sensor answered 503 registers again after the Retry-After, and once only', async () => {
    const client = new SensorClient({ server: test.url });
    const code = await client.installCode(test.adminToken, 1);
    const before = await sensorCount();
    const held = holdLockFor(1_000);
    try {
      const reply = await client.register(code, hostFacts({ computer_name: 'PATIENT' }));
      assert.ok(reply.sensor_id > 0);
      assert.ok(client.retries > 0, 'it was answered 503 first');
    } finally {
      held.release();
    }
    assert.equal(await sensorCount(), before + 1);
  });

  it('vigil simulate reads the install code and registers its sensors once the lock is free again', async () => {
    const before = await sensorCount();
    const held = holdLockFor(1_500);
    try {
      const summary = await simulate({ server: test.url, token: test.adminToken, sensors: 2, processes: 5, seed: 'busy', batchSize: 100 });
      assert.deepEqual(summary.errors, []);
      assert.equal(summary.ok, true);
      assert.equal(summary.sensors, 2);
    } finally {
      held.release();
    }
    assert.equal(await sensorCount(), before + 2, 'each sensor registered once');
  });
});
