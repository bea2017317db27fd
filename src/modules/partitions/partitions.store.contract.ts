/**
 * The contract of PartitionsStore with the writer's partition changes, run against every dialect
 * (partitions.store.test.ts) through an implementation factory, on events written by the
 * dialect's real event store. A partition's first row is where the dialect numbers from (a
 * segment row on SQLite, a segment id on PostgreSQL): the contract holds only its order.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { EventSide, MakeEventSide } from '../../../test/support/event-side.js';
import { processEvents } from '../../../test/support/sensors.js';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import { FilterGate } from '../../ingest/ingress-gate.js';
import { normalizeEvent } from '../../ingest/normalize.js';
import { EventPreparer } from '../../ingest/prepare.js';
import { SqlSensorsStore } from '../sensors/sensors.store.js';
import { warmName } from './partition-names.js';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');

async function withEvents(make: MakeEventSide): Promise<EventSide & { ingest: (sequence: number, pid: number) => Promise<void> }> {
  const clock = { now: T0 };
  const side = await make({ maxEventsPerSegment: 4, windowMs: 3_600_000 }, () => clock.now++);
  const registered = await new SqlSensorsStore(side.db).register({
    groupId: 1, secretHash: 'x', osType: 'windows', hostType: 'workstation', registrationMs: T0, computerName: 'host',
    computerDnsName: '', computerSid: '', osEnvironmentDisplayString: '', buildVersionString: '006.001.002.71109',
    buildId: 0, bootId: '1', networkAdapters: '', physicalMemorySize: 0, systemvolumeTotalSize: 0, systemvolumeFreeSize: 0,
  });
  const sensor: SensorIdentity = { id: registered.id, groupId: 1, hostname: 'host', hostType: 'workstation', osType: 'windows' };
  const ingest = async (sequence: number, pid: number) => {
    const prepared = new EventPreparer(new FilterGate()).prepare({ sensorId: sensor.id, groupId: 1, osType: 'windows' }, processEvents(pid, T0).map(normalizeEvent));
    await side.events.commit([{ sensor, sequence, ...prepared, counters: new Map() }]);
  };
  return { ...side, ingest };
}

export function partitionsStoreContract(make: MakeEventSide): void {
  it('starts with one hot partition and counts what the writer puts in it', async () => {
    const { partitions: store, ingest } = await withEvents(make);
    await ingest(1, 100);
    const [hot, ...others] = await store.list();
    assert.equal(others.length, 0);
    assert.deepEqual({ name: hot!.name, state: hot!.state, endMs: hot!.endMs, segments: hot!.segmentCount }, {
      name: 'writer', state: 'hot', endMs: null, segments: 2,
    });
    assert.ok(hot!.eventBytes > 0);
    const usage = await store.usage();
    assert.ok(usage.usedBytes > 0 && usage.freeBytes >= 0);
  });

  it('rolls over, mounts and unmounts, and deletes in steps', async () => {
    const { db, partitions: store, ingest } = await withEvents(make);
    await ingest(1, 100);
    const started = (await store.list())[0]!.startMs;
    const named = warmName(started);
    assert.match(named, /^cbevents_\d{4}_\d{2}_\d{2}_\d{4}$/u);
    assert.deepEqual(await store.partition({ op: 'rollover', nowMs: T0 + 1000 }), { outcome: 'done', name: named });
    await ingest(2, 200);
    const [warm, hot] = await store.list();
    assert.deepEqual([warm!.name, warm!.state, warm!.startMs, warm!.endMs, warm!.segmentCount], [named, 'warm', started, T0 + 1000, 2]);
    assert.deepEqual([hot!.name, hot!.state, hot!.segmentCount], ['writer', 'hot', 2]);
    assert.ok(hot!.firstRow > warm!.firstRow);
    assert.deepEqual(await store.partition({ op: 'mount', name: 'writer', mounted: false }), { outcome: 'hot', name: 'writer' });
    assert.deepEqual(await store.partition({ op: 'mount', name: 'nope', mounted: true }), { outcome: 'not_found', name: 'nope' });
    await store.partition({ op: 'mount', name: warm!.name, mounted: false });
    assert.equal((await store.list())[0]!.state, 'cold');
    assert.deepEqual(await store.partition({ op: 'delete', name: warm!.name }), { outcome: 'done', name: warm!.name });
    assert.equal(await store.deleting(), true);
    assert.deepEqual((await store.list()).map((p) => p.name), ['writer']);
    while (((await store.partition({ op: 'purge' })) as { more: boolean }).more);
    assert.equal(await store.deleting(), false);
    assert.deepEqual(await db.all('SELECT p.pid FROM segments s JOIN processes p ON p.id = s.process_id'), [{ pid: 200 }, { pid: 200 }], 'the newer partition\'s');
  });
}
