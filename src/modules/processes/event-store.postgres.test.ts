/**
 * What the PostgreSQL event store does when its database goes away (issue 18 point 9): a commit
 * fails with DatabaseUnavailable (a 503 to the sensor, which sends the batch again), and the
 * store commits normally once the database answers again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { closedPort } from '../../../test/support/closed-port.js';
import { registerSensors } from '../../../test/support/event-stores.js';
import { freshMigratedPostgres } from '../../../test/support/postgres-migrated.js';
import { processEvents } from '../../../test/support/sensors.js';
import { PostgresDatabase } from '../../db/dialects/postgres.js';
import { DatabaseUnavailable } from '../../db/errors.js';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import { FilterGate } from '../../ingest/ingress-gate.js';
import { EventPreparer } from '../../ingest/prepare.js';
import { PostgresEventStore } from './event-store.postgres.js';

const SENSOR: SensorIdentity = { id: 1, groupId: 1, hostname: 'host', hostType: 'server', osType: 'linux' };
const T0 = 1_763_000_000_000;

describe('PostgreSQL event store when the database goes away', () => {
  let db: PostgresDatabase;
  before(async () => {
    db = await freshMigratedPostgres();
    await registerSensors(db);
  });
  after(async () => db.close());

  const batch = (sequence: number) => ({
    sensor: SENSOR, sequence, counters: new Map<string, number>(),
    ...new EventPreparer(new FilterGate()).prepare({ sensorId: 1, groupId: 1, osType: 'linux' }, processEvents(10 + sequence, T0 - 1000)),
  });
  const rules = { maxEventsPerSegment: 100, windowMs: 60_000 };

  it('fails a commit to a server that refuses connections with DatabaseUnavailable', async () => {
    const port = await closedPort();
    const unreachable = PostgresDatabase.open(`postgres://vigil:x@127.0.0.1:${port}/vigil`);
    try {
      await assert.rejects(new PostgresEventStore(unreachable, rules, () => T0).commit([batch(1)]), DatabaseUnavailable);
    } finally {
      await unreachable.close();
    }
  });

  it('commits again after the server cut every connection (a restart)', async () => {
    const store = new PostgresEventStore(db, rules, () => T0);
    await store.commit([batch(1)]);
    await db.run('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    let outcome;
    // A connection cut while idle in the pool may fail one commit (as unavailable); the next gets a new one.
    for (let attempt = 0; attempt < 5 && !outcome; attempt++) {
      outcome = await store.commit([batch(2)]).then(([o]) => o, (error: unknown) => {
        assert.ok(error instanceof DatabaseUnavailable, String(error));
        return undefined;
      });
    }
    assert.deepEqual(outcome, { duplicate: false, accepted: 8, filtered: 0 });
    assert.equal((await db.get<{ n: number }>('SELECT count(*) AS n FROM segments'))!.n, 2);
  });
});
