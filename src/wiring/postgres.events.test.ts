/**
 * The event store as the PostgreSQL wiring hands it to the batch writer: the next group's commit
 * is prepared while the one before it still writes (the commits overlap through the wiring, not
 * only in the store), and both commit once the first can.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { registerSensors } from '../../test/support/event-stores.js';
import { dropTestDatabase } from '../../test/support/postgres.js';
import { freshMigratedDatabase } from '../../test/support/postgres-migrated.js';
import { processEvents } from '../../test/support/sensors.js';
import { tempDir } from '../../test/support/temp.js';
import { loadConfig } from '../config/load.js';
import { PostgresDatabase } from '../db/dialects/postgres.js';
import { BatchWriter } from '../ingest/batch-writer.js';
import type { IngestBatch } from '../ingest/event-store.js';
import { FilterGate } from '../ingest/ingress-gate.js';
import { EventPreparer } from '../ingest/prepare.js';
import { SENSORS } from '../modules/processes/event-store.contract.js';
import { openPostgresStores } from './postgres.js';
import type { DatabaseStores } from './stores.js';

function batch(sensorIndex: number, pid: number): IngestBatch {
  const sensor = SENSORS[sensorIndex]!;
  const prepared = new EventPreparer(new FilterGate()).prepare({ sensorId: sensor.id, groupId: sensor.groupId, osType: sensor.osType }, processEvents(pid));
  return { sensor, sequence: 1, ...prepared, counters: new Map() };
}

async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting until ${what}`);
}

describe('PostgreSQL wiring: ingest commits overlap', () => {
  const dataDir = tempDir('vigil-pg-events-');
  let database: { name: string; url: string };
  let db: PostgresDatabase;
  let stores: DatabaseStores;
  before(async () => {
    database = await freshMigratedDatabase();
    db = PostgresDatabase.open(database.url, { poolSize: 3 });
    await registerSensors(db);
    stores = await openPostgresStores(loadConfig({ dataDir, databaseUrl: database.url, logLevel: 'silent' }));
  });
  after(async () => {
    await stores.close();
    await db.close();
    await dropTestDatabase(database.name);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prepares the next group while the one before it waits to write', { timeout: 30_000 }, async () => {
    const writer = new BatchWriter(stores.events, 1);
    const blocker = await db.pool.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE host_segment_counts IN EXCLUSIVE MODE');
    let written: Promise<unknown>;
    try {
      written = Promise.all([writer.write(batch(0, 10)), writer.write(batch(1, 20))]);
      await until(async () => (await db.get<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO host_segment_counts%'"))!.n === 1,
      'the first commit waits for the lock');
      await until(async () => (await db.get<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'idle in transaction' AND query LIKE '%AS k(sensor_id, pid, start_ms)%'"))!.n === 1,
      'the second commit has read what its pass needs');
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
    assert.deepEqual(await written, [{ duplicate: false, accepted: 8, filtered: 0 }, { duplicate: false, accepted: 8, filtered: 0 }]);
  });
});
