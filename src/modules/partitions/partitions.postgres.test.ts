/**
 * Storage partitions on a real PostgreSQL, with events written by the PostgreSQL event store:
 * rollover moves new segments to a new PostgreSQL partition, unmount and mount detach and attach
 * it (and its segments leave and rejoin the counts), delete and purge drop it whole.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerSensors } from '../../../test/support/event-stores.js';
import { freshMigratedPostgres } from '../../../test/support/postgres-migrated.js';
import { processEvents } from '../../../test/support/sensors.js';
import type { PostgresDatabase } from '../../db/dialects/postgres.js';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import { FilterGate } from '../../ingest/ingress-gate.js';
import { normalizeEvent } from '../../ingest/normalize.js';
import { EventPreparer } from '../../ingest/prepare.js';
import { PostgresEventStore } from '../processes/event-store.postgres.js';
import { warmName } from './partition-names.js';
import { PostgresPartitions } from './partitions.postgres.js';

const SENSOR: SensorIdentity = { id: 1, groupId: 1, hostname: 'host', hostType: 'server', osType: 'linux' };
const T0 = Date.parse('2026-11-20T10:00:00.000Z');

describe('PostgreSQL storage partitions', () => {
  let db: PostgresDatabase;
  const clock = { now: T0 };
  let events: PostgresEventStore;
  let partitions: PostgresPartitions;
  let sequence = 0;
  before(async () => {
    db = await freshMigratedPostgres();
    await registerSensors(db);
    events = new PostgresEventStore(db, { maxEventsPerSegment: 4, windowMs: 3_600_000 }, () => clock.now);
    partitions = new PostgresPartitions(db);
  });
  after(async () => db.close());

  const ingest = async (pid: number, from = 0, to = 8) => {
    const prepared = new EventPreparer(new FilterGate()).prepare(
      { sensorId: SENSOR.id, groupId: 1, osType: 'linux' }, processEvents(pid, T0).slice(from, to).map(normalizeEvent),
    );
    await events.commit([{ sensor: SENSOR, sequence: ++sequence, ...prepared, counters: new Map() }]);
  };
  const segmentsOf = async (pid: number) => (await db.all<{ segment_id: number; partition: string }>(
    'SELECT s.segment_id, s.tableoid::regclass::text AS partition FROM segments s JOIN processes p ON p.sensor_id = s.sensor_id AND p.id = s.process_id WHERE p.pid = ? ORDER BY 1',
    [pid],
  ));
  /** Segments counted per host, which the process name tally (schema version 6) must agree with. */
  const counted = async () => {
    const perHost = (await db.all<{ segments: number }>('SELECT segments FROM host_segment_counts'))[0]?.segments ?? 0;
    const perName = await db.get<{ n: number }>('SELECT coalesce(sum(segments), 0)::bigint AS n FROM process_name_segment_counts');
    assert.equal(perName!.n, perHost, 'the process name tally agrees');
    return perHost;
  };

  it('starts with one hot partition holding what the writer wrote', async () => {
    await ingest(100, 0, 6);
    const [hot, ...others] = await partitions.list();
    assert.equal(others.length, 0);
    assert.deepEqual([hot!.name, hot!.state, hot!.endMs, hot!.segmentCount], ['writer', 'hot', null, 2]);
    assert.ok(hot!.eventBytes > 0);
    assert.ok((await partitions.usage()).usedBytes > 0);
  });

  it('rolls over: new segments, also of a running process, go to the new partition', async () => {
    const started = (await partitions.list())[0]!.startMs;
    clock.now = T0 + 1000;
    assert.deepEqual(await partitions.partition({ op: 'rollover', nowMs: clock.now }), { outcome: 'done', name: warmName(started) });
    await ingest(100, 6, 8);
    await ingest(200);
    const [warm, hot] = await partitions.list();
    assert.deepEqual([warm!.state, warm!.endMs, warm!.segmentCount], ['warm', T0 + 1000, 2]);
    assert.deepEqual([hot!.name, hot!.state, hot!.firstRow, hot!.segmentCount], ['writer', 'hot', T0 + 1000, 3]);
    assert.deepEqual((await segmentsOf(100)).map((s) => s.partition), ['segments_p1', 'segments_p1', 'segments_p2']);
    assert.equal(await counted(), 5);
  });

  it('unmounts and mounts: the partition leaves the searched tables and the counts, then comes back', async () => {
    const [warm] = await partitions.list();
    assert.deepEqual(await partitions.partition({ op: 'mount', name: 'writer', mounted: false }), { outcome: 'hot', name: 'writer' });
    assert.deepEqual(await partitions.partition({ op: 'mount', name: 'nope', mounted: true }), { outcome: 'not_found', name: 'nope' });
    await partitions.partition({ op: 'mount', name: warm!.name, mounted: false });
    assert.equal((await partitions.list())[0]!.state, 'cold');
    assert.deepEqual((await segmentsOf(100)).map((s) => s.partition), ['segments_p2']);
    assert.equal(await counted(), 3);
    await partitions.partition({ op: 'mount', name: warm!.name, mounted: true });
    assert.equal((await segmentsOf(100)).length, 3);
    assert.equal(await counted(), 5);
  });

  it('deletes: hidden at once, then dropped whole with the processes left without segments', async () => {
    clock.now = T0 + 2000;
    await ingest(300);
    const name = (await partitions.list())[0]!.name;
    await partitions.partition({ op: 'rollover', nowMs: clock.now });
    assert.deepEqual(await partitions.partition({ op: 'delete', name }), { outcome: 'done', name });
    assert.equal(await partitions.deleting(), true);
    assert.deepEqual((await partitions.list()).map((p) => p.state), ['warm', 'hot']);
    assert.deepEqual(await partitions.partition({ op: 'purge' }), { more: false });
    assert.equal(await partitions.deleting(), false);
    const tables = await db.all<{ name: string }>("SELECT relname AS name FROM pg_class WHERE relkind = 'r' AND relname LIKE 'segments_p%' ORDER BY 1");
    assert.deepEqual(tables.map((t) => t.name), ['segments_p2', 'segments_p3']);
    assert.deepEqual((await db.all<{ pid: number }>('SELECT pid FROM processes ORDER BY pid')).map((p) => p.pid), [100, 200, 300]);
    await partitions.partition({ op: 'delete', name: (await partitions.list())[0]!.name });
    await partitions.partition({ op: 'purge' });
    assert.deepEqual((await db.all<{ pid: number }>('SELECT pid FROM processes ORDER BY pid')).map((p) => p.pid), []);
    assert.equal(await counted(), 0);
  });
});
