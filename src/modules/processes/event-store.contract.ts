/**
 * The event store's contract (ingest/event-store.ts), run on every implementation through a
 * factory: segmenting rules, duplicate sequences, outcomes and counters, events read back whole,
 * processes completed late, restarts, rollbacks, and the per-process and per-host counts. What
 * is read back goes through the fixture's reader, the only dialect-specific part.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { processEvents } from '../../../test/support/sensors.js';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import type { SensorEvent } from '../../ingest/event.schemas.js';
import type { EventStore, IngestBatch, SegmentRules } from '../../ingest/event-store.js';
import { FilterGate } from '../../ingest/ingress-gate.js';
import { EventPreparer } from '../../ingest/prepare.js';

export interface EventStoreReader {
  /** A process's segments by segment id. */
  segments(pid: number): Promise<{ segment_id: number; event_count: number }[]>;
  process(pid: number): Promise<{ process_name: string; cmdline: string } | undefined>;
  processCount(): Promise<number>;
  /** Chunk numbers of a process's segments, in order. */
  chunkNumbers(pid: number): Promise<number[]>;
  /** A process's stored events, segment by segment, chunk by chunk. */
  events(pid: number): Promise<SensorEvent[]>;
  /** What a search can find: `pid/segment_id field:value`, and `pid cmdline:word` for command-line words; sorted. */
  terms(): Promise<string[]>;
  segmentsPerProcess(): Promise<{ pid: number; segments: number }[]>;
  segmentsPerHost(): Promise<{ sensor_id: number; hostname: string; segments: number }[]>;
  counters(sensorId: number): Promise<Record<string, number>>;
}

export interface EventStoreFixture {
  store: EventStore;
  read: EventStoreReader;
  /** Another store on the same database: a restart, or (where `shared`) a second server. */
  another(): Promise<EventStore>;
  /** Makes every commit fail at its end until the returned function is called. */
  failCommits(): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface EventStoreOptions {
  rules: SegmentRules;
  now: () => number;
}

export interface EventStoreContractOptions {
  /** Two stores may commit to one database at once (several servers on PostgreSQL). */
  shared: boolean;
}

/** The sensors the fixture registers (ids 1 and 2). */
export const SENSORS: readonly SensorIdentity[] = [
  { id: 1, groupId: 1, hostname: 'host', hostType: 'server', osType: 'linux' },
  { id: 2, groupId: 1, hostname: 'other', hostType: 'workstation', osType: 'windows' },
];
const [SENSOR] = SENSORS as [SensorIdentity];
const T0 = 1_763_000_000_000;

function batch(sequence: number, events: readonly SensorEvent[], sensor: SensorIdentity = SENSOR): IngestBatch {
  const prepared = new EventPreparer(new FilterGate()).prepare({ sensorId: sensor.id, groupId: sensor.groupId, osType: sensor.osType }, events);
  return { sensor, sequence, ...prepared, counters: new Map([['events_rejected_schema', 2]]) };
}

export function eventStoreContract(make: (options: EventStoreOptions) => Promise<EventStoreFixture>, options: EventStoreContractOptions): void {
  const opened: EventStoreFixture[] = [];
  after(async () => {
    for (const fixture of opened) await fixture.close();
  });
  const fresh = async (clock: { now: number }, rules = { maxEventsPerSegment: 3, windowMs: 60_000 }) => {
    const fixture = await make({ rules, now: () => clock.now });
    opened.push(fixture);
    return fixture;
  };
  const roomy = { maxEventsPerSegment: 100, windowMs: 60_000 };

  describe('event store contract', () => {
    it('splits a batch at the event limit with distinct segment ids, even within one millisecond', async () => {
      const { store, read } = await fresh({ now: T0 });
      await store.commit([batch(1, processEvents(10, T0 - 1000))]);
      const segments = await read.segments(10);
      assert.deepEqual(segments.map((s) => s.event_count), [3, 3, 2]);
      assert.deepEqual(segments.map((s) => s.segment_id), [T0, T0 + 1, T0 + 2]);
    });

    it('opens a new segment when the window of the open one has passed', async () => {
      const clock = { now: T0 };
      const { store, read } = await fresh(clock, roomy);
      const [start, filemod, regmod] = processEvents(20, T0 - 1000) as [SensorEvent, SensorEvent, SensorEvent];
      await store.commit([batch(1, [start, filemod])]);
      clock.now = T0 + 59_999;
      await store.commit([batch(2, [regmod])]);
      clock.now = T0 + 60_000;
      await store.commit([batch(3, [{ ...regmod, ts: regmod.ts + 1 }])]);
      assert.deepEqual(await read.segments(20), [{ segment_id: T0, event_count: 3 }, { segment_id: T0 + 60_000, event_count: 1 }]);
    });

    it('stores every event once, in order, and reads it back whole', async () => {
      const { store, read } = await fresh({ now: T0 });
      const events = processEvents(15, T0 - 1000);
      await store.commit([batch(1, events.slice(0, 5))]);
      await store.commit([batch(2, events.slice(5))]);
      assert.deepEqual(await read.events(15), events);
    });

    it('answers a repeated sequence as a duplicate that stores nothing, and counts what it was told', async () => {
      const { store, read } = await fresh({ now: T0 }, roomy);
      const events = processEvents(25, T0 - 1000);
      const [first] = await store.commit([batch(1, events)]);
      const [again, gap] = await store.commit([batch(1, events), batch(4, processEvents(26, T0 - 900))]);
      assert.deepEqual(first, { duplicate: false, accepted: 8, filtered: 0 });
      assert.deepEqual(again, { duplicate: true, accepted: 0, filtered: 0 });
      assert.equal(gap?.duplicate, false);
      assert.deepEqual(await read.segments(25), [{ segment_id: T0, event_count: 8 }]);
      const counters = await read.counters(SENSOR.id);
      assert.equal(counters.batches_duplicate, 1);
      assert.equal(counters.batches_accepted, 2);
      assert.equal(counters.events_accepted, 16);
      assert.equal(counters.sequence_gaps, 1);
      assert.equal(counters.sequences_missing, 2);
      assert.equal(counters.events_rejected_schema, 6);
    });

    it('records the counters of a batch refused whole', async () => {
      const { store, read } = await fresh({ now: T0 });
      await store.countRejection(SENSOR.id, new Map([['batches_rejected_decode', 1], ['events_rejected_decode', 0]]));
      assert.deepEqual(await read.counters(SENSOR.id), { batches_rejected_decode: 1 });
    });

    it('fills in a process seen first through other events when its start arrives', async () => {
      const { store, read } = await fresh({ now: T0 }, roomy);
      const [start, ...rest] = processEvents(30, T0 - 1000);
      await store.commit([batch(1, rest)]);
      assert.equal((await read.process(30))?.process_name, '');
      await store.commit([batch(2, [start!])]);
      assert.deepEqual(await read.process(30), { process_name: 'cmd.exe', cmdline: 'cmd.exe /c whoami' });
      assert.equal(await read.processCount(), 1);
      assert.ok((await read.terms()).some((term) => term.endsWith('cmdline:whoami')));
    });

    it('continues the open segment after a restart without reusing chunk numbers', async () => {
      const { store, read, another } = await fresh({ now: T0 }, roomy);
      const events = processEvents(40, T0 - 1000);
      await store.commit([batch(1, events.slice(0, 4))]);
      const reopened = await another();
      const [duplicate] = await reopened.commit([batch(1, events.slice(0, 4))]);
      assert.equal(duplicate?.duplicate, true, 'the last sequence survives the restart');
      await reopened.commit([batch(2, events.slice(4))]);
      assert.deepEqual(await read.segments(40), [{ segment_id: T0, event_count: 8 }]);
      assert.deepEqual(await read.chunkNumbers(40), [0, 1]);
    });

    it('posts every term again when a commit is retried after a rollback, as a commit that never failed does', async () => {
      const events = processEvents(50, T0 - 1000);
      const clean = await fresh({ now: T0 }, roomy);
      await clean.store.commit([batch(1, events.slice(0, 2))]);
      await clean.store.commit([batch(2, events.slice(2, 5))]);
      await clean.store.commit([batch(3, events.slice(5))]);

      const retried = await fresh({ now: T0 }, roomy);
      await retried.store.commit([batch(1, events.slice(0, 2))]);
      const heal = await retried.failCommits();
      await assert.rejects(retried.store.commit([batch(2, events.slice(2, 5))]), /injected failure/);
      await heal();
      await retried.store.commit([batch(2, events.slice(2, 5))]);
      await retried.store.commit([batch(3, events.slice(5))]);

      assert.deepEqual(await retried.read.terms(), await clean.read.terms());
      assert.ok((await clean.read.terms()).length >= 8, 'the events carry terms');
      assert.deepEqual(await retried.read.events(50), await clean.read.events(50));
    });

    it('counts segments per process and per host, also for a process read back after a restart', async () => {
      const clock = { now: T0 };
      const { store, read, another } = await fresh(clock);
      const [start, ...rest] = processEvents(60, T0 - 1000);
      await store.commit([batch(1, [start!, ...rest.slice(0, 4)]), batch(2, processEvents(70, T0 - 500))]);
      clock.now = T0 + 60_000;
      await (await another()).commit([batch(3, rest.slice(4)), batch(1, processEvents(80, T0 - 400), SENSORS[1])]);
      assert.deepEqual(await read.segmentsPerProcess(), [{ pid: 60, segments: 3 }, { pid: 70, segments: 3 }, { pid: 80, segments: 3 }]);
      assert.deepEqual(await read.segmentsPerHost(), [
        { sensor_id: 1, hostname: 'host', segments: 6 }, { sensor_id: 2, hostname: 'other', segments: 3 },
      ]);
    });

    it('continues a process that another store wrote to meanwhile', { skip: !options.shared && 'one writer per database' }, async () => {
      const { store, read, another } = await fresh({ now: T0 }, roomy);
      const second = await another();
      const events = processEvents(90, T0 - 1000);
      await store.commit([batch(1, events.slice(0, 3))]);
      await second.commit([batch(2, events.slice(3, 5))]);
      const [duplicate] = await store.commit([batch(2, events.slice(3, 5))]);
      await store.commit([batch(3, events.slice(5))]);
      assert.equal(duplicate?.duplicate, true);
      assert.deepEqual(await read.segments(90), [{ segment_id: T0, event_count: 8 }]);
      assert.deepEqual(await read.chunkNumbers(90), [0, 1, 2]);
    });

    it('stores a batch sent to two stores at once only once', { skip: !options.shared && 'one writer per database' }, async () => {
      const { store, read, another } = await fresh({ now: T0 }, roomy);
      const second = await another();
      const events = processEvents(95, T0 - 1000);
      const outcomes = await Promise.all([store.commit([batch(1, events)]), second.commit([batch(1, events)])]);
      assert.deepEqual(outcomes.map(([o]) => o?.duplicate).sort(), [false, true]);
      assert.deepEqual(await read.segments(95), [{ segment_id: T0, event_count: 8 }]);
      assert.equal((await read.events(95)).length, 8);
    });

    it('commits two stores at once for different sensors', { skip: !options.shared && 'one writer per database' }, async () => {
      const { store, read, another } = await fresh({ now: T0 }, roomy);
      const second = await another();
      await Promise.all([
        store.commit([batch(1, processEvents(100, T0 - 1000))]),
        second.commit([batch(1, processEvents(100, T0 - 1000), SENSORS[1])]),
      ]);
      assert.equal(await read.processCount(), 2);
      assert.deepEqual(await read.segmentsPerProcess(), [{ pid: 100, segments: 1 }, { pid: 100, segments: 1 }]);
    });
  });
}
