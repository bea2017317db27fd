/**
 * The contract of ProcessDetailStore, run against every dialect (process-detail.store.test.ts)
 * through an implementation factory. Processes are written by the dialect's real event store from
 * prepared batches, as ingestion writes them, with segments of three events so that every process
 * spans several.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { EventSide, MakeEventSide } from '../../../test/support/event-side.js';
import { processEvents } from '../../../test/support/sensors.js';
import type { SqlDatabase } from '../../db/database.js';
import type { SensorEvent } from '../../ingest/event.schemas.js';
import { FilterGate } from '../../ingest/ingress-gate.js';
import { normalizeEvent } from '../../ingest/normalize.js';
import { EventPreparer } from '../../ingest/prepare.js';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import { SqlSensorsStore } from '../sensors/sensors.store.js';
import { SqlBinariesStore } from '../binaries/binaries.store.js';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const CMD = 'c:\\windows\\system32\\cmd.exe';

async function sensorIn(db: SqlDatabase, groupId: number, name: string): Promise<SensorIdentity> {
  if (groupId !== 1) await db.run('INSERT INTO sensor_groups (id, name, site_id) VALUES (?, ?, 1)', [groupId, `Group ${groupId}`]);
  const sensor = await new SqlSensorsStore(db).register({
    groupId, secretHash: 'x', osType: 'windows', hostType: 'workstation', registrationMs: T0, computerName: name,
    computerDnsName: '', computerSid: '', osEnvironmentDisplayString: '', buildVersionString: '006.001.002.71109',
    buildId: 0, bootId: '1', networkAdapters: 'fe80::1,00155d019c08|10.1.2.3,00155d019c09|', physicalMemorySize: 0,
    systemvolumeTotalSize: 0, systemvolumeFreeSize: 0,
  });
  return { id: sensor.id, groupId, hostname: name, hostType: 'workstation', osType: 'windows' };
}

/** Writes the events as one batch of the sensor, normalized and prepared as the pipeline does, through the real event store. */
async function ingest(side: EventSide, sensor: SensorIdentity, sequence: number, events: SensorEvent[]): Promise<void> {
  const prepared = new EventPreparer(new FilterGate()).prepare({ sensorId: sensor.id, groupId: sensor.groupId, osType: sensor.osType }, events.map(normalizeEvent));
  await side.events.commit([{ sensor, sequence, ...prepared, counters: new Map() }]);
}

export function processDetailStoreContract(make: MakeEventSide): void {
  const fresh = () => make({ maxEventsPerSegment: 3, windowMs: 3_600_000 });

  it('finds a process with its segments and gives back its events as they were stored', async () => {
    const side = await fresh();
    const { db } = side;
    const sensor = await sensorIn(db, 1, 'WIN-A');
    const events = processEvents(100, T0, { pid: 50, start: T0 - 1000, path: 'C:\\Windows\\Explorer.EXE' });
    await ingest(side, sensor, 1, structuredClone(events));
    const store = side.detail;

    const process = await store.find({ sensorId: sensor.id, pid: 100, startMs: T0 });
    assert.ok(process);
    assert.equal(process.path, CMD);
    assert.equal(process.parentName, 'explorer.exe', 'named after the start event\'s parent path');
    assert.equal(process.parentStartMs, T0 - 1000);
    assert.equal(process.sensorIp, '10.1.2.3', 'the first IPv4 address of the sensor');
    assert.equal(process.groupName, 'Default Group');
    assert.equal(process.endMs, T0 + 10);
    assert.equal(await store.find({ sensorId: sensor.id, pid: 100, startMs: T0 + 1 }), undefined);

    const segments = await store.segments(process.row);
    assert.deepEqual(segments.map((s) => s.eventCount), [3, 3, 2]);
    assert.ok(segments.every((s, i) => i === 0 || s.segmentId > segments[i - 1]!.segmentId), 'oldest first');
    assert.equal(segments.reduce((sum, s) => sum + s.counts.netconn, 0), 1);
    const stored = await store.events({ sensorId: sensor.id, pid: 100, startMs: T0 }, segments.map((s) => s.row));
    const normalized = JSON.parse(JSON.stringify(events.map((event) => normalizeEvent(structuredClone(event))))) as SensorEvent[];
    assert.deepEqual(stored.flat(), normalized);
    assert.deepEqual(stored.map((list) => list.length), [3, 3, 2]);
  });

  it('lists children and siblings by start within the caller\'s groups, unknown parents included', async () => {
    const side = await fresh();
    const { db } = side;
    const a = await sensorIn(db, 1, 'WIN-A');
    const parent = { pid: 100, start: T0, path: CMD };
    await ingest(side, a, 1, [
      ...processEvents(100, T0),
      ...processEvents(103, T0 + 30, parent),
      ...processEvents(101, T0 + 10, parent),
      ...processEvents(102, T0 + 20, parent),
      ...processEvents(200, T0 + 40),
    ]);
    const store = side.detail;
    const key = { sensorId: a.id, pid: 100, startMs: T0 };

    const children = await store.children(key, 'all', 10);
    assert.deepEqual(children.map((c) => c.process.pid), [101, 102, 103]);
    assert.deepEqual(children[0]!.span.segmentIds.length, 3, 'a child\'s span merges all its segments');
    assert.equal(children[0]!.span.counts.filemod, 1);
    assert.deepEqual((await store.children(key, 'all', 2)).map((c) => c.process.pid), [101, 102]);
    assert.deepEqual(await store.children(key, [2], 10), [], 'processes of other groups are left out');
    assert.equal((await store.children(key, [1], 10)).length, 3);

    const middle = (await store.find({ sensorId: a.id, pid: 102, startMs: T0 + 20 }))!;
    assert.deepEqual((await store.siblings(middle, 'all', 10)).map((s) => s.process.pid), [101, 103]);
    const root = (await store.find(key))!;
    assert.deepEqual((await store.siblings(root, 'all', 10)).map((s) => s.process.pid), [200], 'others whose parent is unknown too');
  });

  it('gives the signatures of known binaries observed in scope, and how widely a binary ran', async () => {
    const side = await fresh();
    const { db } = side;
    const a = await sensorIn(db, 1, 'WIN-A');
    const b = await sensorIn(db, 2, 'WIN-B');
    await ingest(side, a, 1, processEvents(100, T0));
    await ingest(side, b, 1, processEvents(100, T0));
    const binaries = new SqlBinariesStore(db);
    const signed = 'b'.repeat(32);
    const unsigned = 'c'.repeat(32);
    await binaries.record({ md5: signed, size: 1, observed_filename: 'c:\\x.dll', digsig: { result: 'Signed', publisher: 'Microsoft Windows' } }, undefined, a.id, T0);
    await binaries.record({ md5: unsigned, size: 1, observed_filename: 'c:\\y.exe' }, undefined, b.id, T0);
    const store = side.detail;

    const all = await store.binarySignatures([signed, unsigned, 'd'.repeat(32)], 'all');
    assert.deepEqual(all.sort((x, y) => x.md5.localeCompare(y.md5)), [
      { md5: signed, digsigResult: 'Signed', digsigPublisher: 'Microsoft Windows' },
      { md5: unsigned, digsigResult: '(Unknown)', digsigPublisher: undefined },
    ]);
    assert.deepEqual((await store.binarySignatures([signed, unsigned], [1])).map((s) => s.md5), [signed]);
    assert.deepEqual(await store.binarySignatures([signed], []), []);

    const md5 = 'ad7b9c14083b52bc532fba5948342b98';
    assert.deepEqual(await store.md5Frequency(md5, 'all'), { hostCount: 2, globalCount: 2, numDocs: 6 });
    assert.deepEqual(await store.md5Frequency(md5, [2]), { hostCount: 1, globalCount: 1, numDocs: 3 });
    assert.deepEqual(await store.md5Frequency('e'.repeat(32), 'all'), { hostCount: 0, globalCount: 2, numDocs: 0 });
  });
}
