/**
 * The contract of PartitionsStore with the writer's partition changes, run against every dialect
 * (partitions.store.test.ts), on events written by the real event store.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { partitionWriterOn } from '../../../test/support/partitions.js';
import { processEvents } from '../../../test/support/sensors.js';
import type { SqlDatabase } from '../../db/database.js';
import type { SqliteDatabase } from '../../db/dialects/sqlite.js';
import { FilterGate } from '../../ingest/ingress-gate.js';
import { normalizeEvent } from '../../ingest/normalize.js';
import { EventPreparer } from '../../ingest/prepare.js';
import { SqliteEventStore } from '../processes/event-store.sqlite.js';
import { SqlSensorsStore } from '../sensors/sensors.store.js';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import { warmName } from './partition-writer.sqlite.js';
import { SqlPartitionsStore } from './partitions.store.js';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');

async function withEvents(db: SqlDatabase): Promise<{ events: SqliteEventStore; ingest: (sequence: number, pid: number) => Promise<void> }> {
  const registered = await new SqlSensorsStore(db).register({
    groupId: 1, secretHash: 'x', osType: 'windows', hostType: 'workstation', registrationMs: T0, computerName: 'host',
    computerDnsName: '', computerSid: '', osEnvironmentDisplayString: '', buildVersionString: '006.001.002.71109',
    buildId: 0, bootId: '1', networkAdapters: '', physicalMemorySize: 0, systemvolumeTotalSize: 0, systemvolumeFreeSize: 0,
  });
  const sensor: SensorIdentity = { id: registered.id, groupId: 1, hostname: 'host', hostType: 'workstation', osType: 'windows' };
  const events = new SqliteEventStore(db as SqliteDatabase, { maxEventsPerSegment: 4, windowMs: 3_600_000 });
  const ingest = async (sequence: number, pid: number) => {
    const prepared = new EventPreparer(new FilterGate()).prepare({ sensorId: sensor.id, groupId: 1, osType: 'windows' }, processEvents(pid, T0).map(normalizeEvent));
    await events.commit([{ sensor, sequence, ...prepared, counters: new Map() }]);
  };
  return { events, ingest };
}

export function partitionsStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('starts with one hot partition and counts what the writer puts in it', async () => {
    const db = await fresh();
    const store = new SqlPartitionsStore(db);
    const { ingest } = await withEvents(db);
    await ingest(1, 100);
    const [hot, ...others] = await store.list();
    assert.equal(others.length, 0);
    assert.deepEqual({ name: hot!.name, state: hot!.state, firstRow: hot!.firstRow, endMs: hot!.endMs, segments: hot!.segmentCount }, {
      name: 'writer', state: 'hot', firstRow: 1, endMs: null, segments: 2,
    });
    assert.ok(hot!.eventBytes > 0);
    const usage = await store.usage();
    assert.ok(usage.usedBytes > 0 && usage.freeBytes >= 0);
  });

  it('rolls over, mounts and unmounts, and deletes in steps', async () => {
    const db = await fresh();
    const store = new SqlPartitionsStore(db);
    const { events, ingest } = await withEvents(db);
    const writer = partitionWriterOn(db as SqliteDatabase, events);
    await ingest(1, 100);
    const started = (await store.list())[0]!.startMs;
    const named = warmName(started);
    assert.match(named, /^cbevents_\d{4}_\d{2}_\d{2}_\d{4}$/u);
    assert.deepEqual(await writer.partition({ op: 'rollover', nowMs: T0 + 1000 }), { outcome: 'done', name: named });
    await ingest(2, 200);
    const [warm, hot] = await store.list();
    assert.deepEqual([warm!.name, warm!.state, warm!.startMs, warm!.endMs, warm!.segmentCount], [named, 'warm', started, T0 + 1000, 2]);
    assert.deepEqual([hot!.name, hot!.state, hot!.firstRow, hot!.segmentCount], ['writer', 'hot', 3, 2]);
    assert.deepEqual(await writer.partition({ op: 'mount', name: 'writer', mounted: false }), { outcome: 'hot', name: 'writer' });
    assert.deepEqual(await writer.partition({ op: 'mount', name: 'nope', mounted: true }), { outcome: 'not_found', name: 'nope' });
    await writer.partition({ op: 'mount', name: warm!.name, mounted: false });
    assert.equal((await store.list())[0]!.state, 'cold');
    assert.deepEqual(await writer.partition({ op: 'delete', name: warm!.name }), { outcome: 'done', name: warm!.name });
    assert.equal(await store.deleting(), true);
    assert.deepEqual((await store.list()).map((p) => p.name), ['writer']);
    while (((await writer.partition({ op: 'purge' })) as { more: boolean }).more);
    assert.equal(await store.deleting(), false);
    assert.deepEqual(await db.all('SELECT id FROM segments ORDER BY id'), [{ id: 3 }, { id: 4 }]);
  });
}
