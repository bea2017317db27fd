/**
 * One small fleet's events ingested through both event stores (SQLite and PostgreSQL), for tests
 * that ask both the same question and compare the answers.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { PostgresDatabase } from '../../src/db/dialects/postgres.js';
import { SqliteDatabase } from '../../src/db/dialects/sqlite.js';
import { migrate } from '../../src/db/migrate.js';
import { sqliteMigrations } from '../../src/db/migrations/sqlite.js';
import type { SensorIdentity } from '../../src/domain/sensor-identity.js';
import type { SensorEvent } from '../../src/ingest/event.schemas.js';
import type { EventStore, IngestBatch } from '../../src/ingest/event-store.js';
import { FilterGate } from '../../src/ingest/ingress-gate.js';
import { normalizeEvent } from '../../src/ingest/normalize.js';
import { EventPreparer } from '../../src/ingest/prepare.js';
import { PostgresEventStore } from '../../src/modules/processes/event-store.postgres.js';
import { SqliteEventStore } from '../../src/modules/processes/event-store.sqlite.js';
import { registerSensors } from './event-stores.js';
import { freshMigratedPostgres } from './postgres-migrated.js';
import { processEvents } from './sensors.js';
import { tempDir } from './temp.js';

export const FLEET_T0 = Date.UTC(2024, 3, 30, 10);
const SENSORS: SensorIdentity[] = [
  { id: 1, groupId: 1, hostname: 'host', hostType: 'server', osType: 'linux' },
  { id: 2, groupId: 1, hostname: 'other', hostType: 'workstation', osType: 'windows' },
];

/** processEvents with another program, command line, domain and address. */
function appEvents(pid: number): SensorEvent[] {
  return processEvents(pid, FLEET_T0 + pid).map((event) => {
    if (event.type === 'process_start') {
      return { ...event, path: 'C:\\Program Files\\App\\App.exe', cmdline: '"C:\\Program Files\\App\\App.exe" --config=C:\\cfg\\x.ini /quiet', username: 'CORP\\Bob' };
    }
    if (event.type === 'netconn') return { ...event, domain: 'login.MicrosoftOnline.com', remote_ip: '10.9.8.7', remote_port: 8080 };
    if (event.type === 'filemod') return { ...event, path: 'C:\\Users\\bob\\AppData\\Local\\Temp\\setup.tmp' };
    return event;
  });
}

/** Per sensor, its batches in order. */
const FLEET: SensorEvent[][][] = [
  [processEvents(100, FLEET_T0), appEvents(200), [...processEvents(300, FLEET_T0 + 300).slice(0, 4), ...appEvents(400)]],
  [appEvents(500), processEvents(600, FLEET_T0 + 600)],
];

/** As the pipeline hands batches to the store: normalized (normalize.ts), then prepared. */
async function ingest(store: EventStore): Promise<void> {
  for (const [index, batches] of FLEET.entries()) {
    const sensor = SENSORS[index]!;
    for (const [i, sent] of batches.entries()) {
      const prepared = new EventPreparer(new FilterGate()).prepare(
        { sensorId: sensor.id, groupId: sensor.groupId, osType: sensor.osType }, sent.map((event) => normalizeEvent(structuredClone(event))),
      );
      const batch: IngestBatch = { sensor, sequence: i + 1, counters: new Map(), ...prepared };
      await store.commit([batch]);
    }
  }
}

export interface BothStores {
  sqlite: SqliteDatabase;
  postgres: PostgresDatabase;
  close(): Promise<void>;
}

export async function bothStores(): Promise<BothStores> {
  const dir = tempDir('vigil-both-stores-');
  const sqlite = SqliteDatabase.open(join(dir, 'store.db'));
  await migrate(sqlite, sqliteMigrations);
  const postgres = await freshMigratedPostgres();
  for (const db of [sqlite, postgres]) await registerSensors(db);
  const rules = { maxEventsPerSegment: 4, windowMs: 60_000 };
  await ingest(new SqliteEventStore(sqlite, rules, () => FLEET_T0));
  await ingest(new PostgresEventStore(postgres, rules, () => FLEET_T0));
  return {
    sqlite,
    postgres,
    async close() {
      await sqlite.close();
      await postgres.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
