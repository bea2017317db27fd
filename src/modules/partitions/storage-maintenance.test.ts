/**
 * Rollover and retention decisions with a clock and a disk the test sets, on a real database and
 * event store: rollover by age and size, a warning before anything is dropped, whole oldest
 * partitions dropped by disk share and by age, never the hot one.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { partitionWriterOn } from '../../../test/support/partitions.js';
import { processEvents } from '../../../test/support/sensors.js';
import { tempDir } from '../../../test/support/temp.js';
import { SqliteDatabase } from '../../db/dialects/sqlite.js';
import { migrate } from '../../db/migrate.js';
import { sqliteMigrations } from '../../db/migrations/sqlite.js';
import { SqlJobLeasesStore } from '../../jobs/job-leases.store.js';
import { LeasedJobs } from '../../jobs/leased-jobs.js';
import { FilterGate } from '../../ingest/ingress-gate.js';
import { normalizeEvent } from '../../ingest/normalize.js';
import { EventPreparer } from '../../ingest/prepare.js';
import { SqliteEventStore } from '../processes/event-store.sqlite.js';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import { SqlSensorsStore } from '../sensors/sensors.store.js';
import { SqlPartitionsStore } from './partitions.store.js';
import { StorageMaintenance, type MaintenanceLog } from './storage-maintenance.js';

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const GB = 1024 ** 3;

/** A database with one registered sensor, an event store on the given clock, and the maintenance on it. */
async function maintainedStore(settings: { maxPartitionBytes: number }, clock: () => number, disk: () => Promise<{ totalBytes: number; availableBytes: number }>) {
  const dir = tempDir();
  const db = SqliteDatabase.open(join(dir, 'vigil.db'));
  await migrate(db, sqliteMigrations);
  await new SqlSensorsStore(db).register({
    groupId: 1, secretHash: 'x', osType: 'windows', hostType: 'workstation', registrationMs: T0, computerName: 'host',
    computerDnsName: '', computerSid: '', osEnvironmentDisplayString: '', buildVersionString: '006.001.002.71109',
    buildId: 0, bootId: '1', networkAdapters: '', physicalMemorySize: 0, systemvolumeTotalSize: 0, systemvolumeFreeSize: 0,
  });
  await db.run('UPDATE event_partitions SET start_ms = ?', [T0]);
  const events = new SqliteEventStore(db, { maxEventsPerSegment: 4, windowMs: 3_600_000 }, clock);
  const store = new SqlPartitionsStore(db);
  const maintenance = new StorageMaintenance(store, partitionWriterOn(db, events), {
    rolloverMs: 3 * DAY, maxPartitionBytes: settings.maxPartitionBytes, maxAgeMs: 10 * DAY, maxDiskShare: 0.9, warnDiskShare: 0.8,
  }, disk, clock);
  return { dir, db, events, store, maintenance };
}

describe('storage maintenance', () => {
  let dir: string;
  let db: SqliteDatabase;
  let store: SqlPartitionsStore;
  let maintenance: StorageMaintenance;
  let events: SqliteEventStore;
  let now = T0;
  let sequence = 0;
  const disk = { totalBytes: 100 * GB, availableBytes: 50 * GB };
  const logged: string[] = [];
  const log: MaintenanceLog = { info: (_, m) => logged.push(`info ${m}`), warn: (_, m) => logged.push(`warn ${m}`), error: (_, m) => logged.push(`error ${m}`) };
  const states = async () => (await store.list()).map((p) => `${p.state}`);
  const ingest = async (pid: number) => {
    const prepared = new EventPreparer(new FilterGate()).prepare({ sensorId: 1, groupId: 1, osType: 'windows' }, processEvents(pid, now).map(normalizeEvent));
    const sensor: SensorIdentity = { id: 1, groupId: 1, hostname: 'host', hostType: 'workstation', osType: 'windows' };
    await events.commit([{ sensor, sequence: ++sequence, ...prepared, counters: new Map() }]);
  };

  before(async () => {
    ({ dir, db, events, store, maintenance } = await maintainedStore({ maxPartitionBytes: 0 }, () => now, () => Promise.resolve(disk)));
    maintenance.start(3_600_000, log, new LeasedJobs(new SqlJobLeasesStore(db), { leaseMs: 60_000 }));
  });
  after(async () => {
    await maintenance.stop();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('checks under its lease, so that of several servers on the database one checks per period', async () => {
    const ran = async () => (await db.get<{ ran_ms: number | null }>("SELECT ran_ms FROM job_leases WHERE name = 'storage-maintenance'"))?.ran_ms;
    while ((await ran()) == null) await new Promise((resolve) => setTimeout(resolve, 10));
    const other = new LeasedJobs(new SqlJobLeasesStore(db), { leaseMs: 60_000 });
    assert.equal(await other.once('storage-maintenance', 3_600_000, () => maintenance.check()), false, 'another server does not check again within the hour');
  });

  it('rolls the hot partition over once it is three days old', async () => {
    await ingest(100);
    now = T0 + 2 * DAY;
    await maintenance.check();
    assert.deepEqual(await states(), ['hot']);
    now = T0 + 3 * DAY;
    await maintenance.check();
    assert.deepEqual(await states(), ['warm', 'hot']);
    await ingest(200);
  });

  it('warns before the disk is full enough to drop anything, then drops the oldest partition whole', async () => {
    disk.availableBytes = 15 * GB;
    await maintenance.check();
    assert.match(maintenance.storageWarning()!, /85% full/u);
    assert.ok(logged.some((line) => line.startsWith('warn The disk holding the event store is 85% full')));
    assert.deepEqual(await states(), ['warm', 'hot'], 'nothing dropped at the warning level');

    disk.availableBytes = 5 * GB;
    await maintenance.check();
    assert.deepEqual(await states(), ['hot']);
    assert.ok(logged.some((line) => line.includes('deleting event partition: the disk is 95% full')));
    assert.deepEqual(await db.all('SELECT DISTINCT p.pid FROM segments s JOIN processes p ON p.id = s.process_id'), [{ pid: 200 }]);
  });

  it('never drops the hot partition, even when the disk stays full', async () => {
    await maintenance.check();
    assert.deepEqual(await states(), ['hot']);
    assert.ok(logged.some((line) => line.startsWith('error the disk is full and only the hot partition is left')));
    disk.availableBytes = 50 * GB;
    await maintenance.check();
    assert.equal(maintenance.storageWarning(), null);
  });

  it('drops partitions that ended longer ago than the retention age', async () => {
    now = T0 + 6 * DAY;
    await maintenance.check();
    assert.deepEqual(await states(), ['warm', 'hot'], 'rolled over at day 6');
    now = T0 + 16 * DAY;
    await maintenance.check();
    assert.deepEqual(await states(), ['warm', 'warm', 'hot'], 'rolled over again at day 16; the first ended exactly 10 days ago and stays');
    now = T0 + 16 * DAY + 1;
    await maintenance.check();
    assert.deepEqual((await store.list()).map((p) => [p.state, p.endMs]), [['warm', T0 + 16 * DAY], ['hot', null]]);
  });
});

describe('storage maintenance with a size limit', () => {
  it('rolls the hot partition over once its events reach the size limit, however young it is', async () => {
    const now = T0 + DAY;
    const { dir, db, events, store, maintenance } = await maintainedStore(
      { maxPartitionBytes: 2_000 }, () => now, () => Promise.resolve({ totalBytes: 100 * GB, availableBytes: 50 * GB }),
    );
    try {
      const sensor: SensorIdentity = { id: 1, groupId: 1, hostname: 'host', hostType: 'workstation', osType: 'windows' };
      const preparer = new EventPreparer(new FilterGate());
      let sequence = 0;
      const ingest = async (pid: number) => {
        const prepared = preparer.prepare({ sensorId: 1, groupId: 1, osType: 'windows' }, processEvents(pid, now).map(normalizeEvent));
        await events.commit([{ sensor, sequence: ++sequence, ...prepared, counters: new Map() }]);
      };
      await ingest(100);
      await maintenance.check();
      const [hot] = await store.list();
      assert.ok(hot!.eventBytes > 0 && hot!.eventBytes < 2_000, `one process's events (${hot!.eventBytes} bytes) stay under the limit`);
      assert.deepEqual((await store.list()).map((p) => p.state), ['hot']);
      while ((await store.list())[0]!.eventBytes < 2_000) await ingest(100 + sequence);
      await maintenance.check();
      assert.deepEqual((await store.list()).map((p) => p.state), ['warm', 'hot'], 'rolled over by size, one day after it started');
    } finally {
      await maintenance.stop();
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
