/**
 * The PostgreSQL event store on its own thread: what it commits there is in the database every
 * connection reads, a sensor's repeated sequence is still a duplicate, and a database out of reach
 * reaches the caller as DatabaseUnavailable (a 503 the sensor retries), not as a bare error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { closedPort } from '../../../test/support/closed-port.js';
import { registerSensors } from '../../../test/support/event-stores.js';
import { dropTestDatabase } from '../../../test/support/postgres.js';
import { freshMigratedDatabase } from '../../../test/support/postgres-migrated.js';
import { processEvents } from '../../../test/support/sensors.js';
import { PostgresDatabase } from '../../db/dialects/postgres.js';
import { DatabaseUnavailable } from '../../db/errors.js';
import type { IngestBatch } from '../../ingest/event-store.js';
import { FilterGate } from '../../ingest/ingress-gate.js';
import { EventPreparer } from '../../ingest/prepare.js';
import { SENSORS } from './event-store.contract.js';
import { ThreadedPostgresEventStore } from './event-store.threaded.postgres.js';

const RULES = { maxEventsPerSegment: 100, windowMs: 60_000 };

function batch(sequence: number, pid: number): IngestBatch {
  const sensor = SENSORS[0]!;
  const prepared = new EventPreparer(new FilterGate()).prepare({ sensorId: sensor.id, groupId: sensor.groupId, osType: sensor.osType }, processEvents(pid));
  return { sensor, sequence, ...prepared, counters: new Map() };
}

describe('PostgreSQL event store on its own thread', () => {
  let database: { name: string; url: string };
  let db: PostgresDatabase;
  before(async () => {
    database = await freshMigratedDatabase();
    db = PostgresDatabase.open(database.url, { poolSize: 2 });
    await registerSensors(db);
  });
  after(async () => {
    await db.close();
    await dropTestDatabase(database.name);
  });

  it('commits on the writer thread, overlapping, into the database others read', async () => {
    const store = new ThreadedPostgresEventStore({ url: database.url, rules: RULES });
    try {
      const first = store.commit([batch(1, 7)]);
      await store.readyForNext();
      const second = store.commit([batch(2, 8), batch(2, 9)]);
      assert.deepEqual(await first, [{ duplicate: false, accepted: 8, filtered: 0 }]);
      assert.deepEqual(await second, [{ duplicate: false, accepted: 8, filtered: 0 }, { duplicate: true, accepted: 0, filtered: 0 }]);
      const stored = await db.all<{ pid: number; events: number }>(
        'SELECT p.pid, sum(s.event_count)::int AS events FROM processes p JOIN segments s ON s.process_id = p.id GROUP BY p.pid ORDER BY p.pid');
      assert.deepEqual(stored, [{ pid: 7, events: 8 }, { pid: 8, events: 8 }]);
    } finally {
      await store.close();
    }
  });

  it('once its writer is gone, fails commits but still says it is ready, so the batch writer is not left stuck', async () => {
    const store = new ThreadedPostgresEventStore({ url: database.url, rules: RULES });
    await store.close();
    await store.readyForNext();
    await assert.rejects(store.commit([batch(3, 10)]), /exited/);
  });

  it('fails a commit to a database out of reach with DatabaseUnavailable, across the thread', async () => {
    const store = new ThreadedPostgresEventStore({ url: `postgres://vigil:x@127.0.0.1:${await closedPort()}/vigil`, rules: RULES });
    try {
      await assert.rejects(store.commit([batch(1, 7)]), DatabaseUnavailable);
      await assert.rejects(store.countRejection(1, new Map([['x', 1]])), DatabaseUnavailable);
    } finally {
      await store.close();
    }
  });
});
