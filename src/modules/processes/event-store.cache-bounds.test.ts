/**
 * The embedded event store's in-memory state stays within its bounds (ADR 0030,
 * ingestProcessCacheEntries and ingestTermCacheEntries) however many processes and distinct terms
 * arrive, and what it forgot it reads back: a process sending again after it was forgotten keeps
 * its row, a term seen again keeps its id.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { tempDir } from '../../../test/support/temp.js';
import { processEvents } from '../../../test/support/sensors.js';
import { SqliteDatabase } from '../../db/dialects/sqlite.js';
import { migrate } from '../../db/migrate.js';
import { sqliteMigrations } from '../../db/migrations/sqlite.js';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import type { IngestBatch } from '../../ingest/event-store.js';
import type { SensorEvent } from '../../ingest/event.schemas.js';
import { FilterGate } from '../../ingest/ingress-gate.js';
import { EventPreparer } from '../../ingest/prepare.js';
import { SqlSensorsStore } from '../sensors/sensors.store.js';
import { SqliteEventStore } from './event-store.sqlite.js';

const SENSOR: SensorIdentity = { id: 1, groupId: 1, hostname: 'host', hostType: 'server', osType: 'linux' };
const T0 = 1_763_000_000_000;
const BOUNDS = { processes: 10, terms: 20 };

/** A process that stays open, writing a file of its own (a term no other process has). */
function openProcess(pid: number): SensorEvent[] {
  return processEvents(pid, T0 + pid)
    .filter((event) => event.type !== 'process_end')
    .map((event) => (event.type === 'filemod' ? { ...event, path: `C:\\Temp\\only-${pid}.txt` } : event));
}

describe('SQLite event store cache bounds', () => {
  const dir = tempDir('vigil-cache-bounds-');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('holds no more processes and terms than its bounds, and reads back what it forgot', async () => {
    const db = SqliteDatabase.open(join(dir, 'events.db'));
    await migrate(db, sqliteMigrations);
    await new SqlSensorsStore(db).register({
      groupId: 1, secretHash: 'x', osType: 'linux', hostType: 'server', registrationMs: T0, computerName: 'host',
      computerDnsName: '', computerSid: '', osEnvironmentDisplayString: '', buildVersionString: '006.001.002.71109',
      buildId: 0, bootId: '1', networkAdapters: '', physicalMemorySize: 0, systemvolumeTotalSize: 0, systemvolumeFreeSize: 0,
    });
    const store = new SqliteEventStore(db, { maxEventsPerSegment: 1000, windowMs: 3_600_000, cacheBounds: BOUNDS }, () => T0 + 1000);
    const preparer = new EventPreparer(new FilterGate());
    const batch = (sequence: number, events: SensorEvent[]): IngestBatch => ({
      sensor: SENSOR, sequence, ...preparer.prepare({ sensorId: 1, groupId: 1, osType: 'linux' }, events), counters: new Map(),
    });
    try {
      for (let sequence = 1; sequence <= 5; sequence++) {
        const pids = Array.from({ length: 20 }, (_, i) => 1000 + sequence * 100 + i * 2);
        await store.commit([batch(sequence, pids.flatMap(openProcess))]);
        const sizes = store.cacheSizes();
        assert.ok(sizes.processes <= BOUNDS.processes, `${sizes.processes} processes cached`);
        assert.ok(sizes.terms <= BOUNDS.terms, `${sizes.terms} terms cached`);
      }
      // The first process, long forgotten, writes its file again.
      const again = openProcess(1100).filter((event) => event.type === 'filemod').map((event) => ({ ...event, ts: event.ts + 50 }));
      await store.commit([batch(6, again)]);
      const rows = await db.all<{ filemods: number }>(
        `SELECT s.filemod_count AS filemods FROM processes p JOIN segments s ON s.process_id = p.id WHERE p.pid = 1100`,
      );
      assert.deepEqual(rows, [{ filemods: 2 }], 'one process, one segment, both writes counted');
      const terms = await db.all<{ n: number }>(`SELECT count(*) AS n FROM event_terms WHERE value LIKE '%only-1100.txt'`);
      assert.deepEqual(terms, [{ n: 1 }]);
    } finally {
      await db.close();
    }
  });
});
