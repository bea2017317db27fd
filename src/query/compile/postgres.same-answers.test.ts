/**
 * Both compilers against each other: the same events ingested by both event stores, then each
 * query run on both, with the segments found compared. What the SQLite store answers is the
 * reference (its matching rules are the query language's own code, sqlite-functions.ts).
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { registerSensors } from '../../../test/support/event-stores.js';
import { freshMigratedPostgres } from '../../../test/support/postgres-migrated.js';
import { processEvents } from '../../../test/support/sensors.js';
import { tempDir } from '../../../test/support/temp.js';
import type { PostgresDatabase } from '../../db/dialects/postgres.js';
import { SqliteDatabase } from '../../db/dialects/sqlite.js';
import { migrate } from '../../db/migrate.js';
import { sqliteMigrations } from '../../db/migrations/sqlite.js';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import type { SensorEvent } from '../../ingest/event.schemas.js';
import type { EventStore, IngestBatch } from '../../ingest/event-store.js';
import { FilterGate } from '../../ingest/ingress-gate.js';
import { normalizeEvent } from '../../ingest/normalize.js';
import { EventPreparer } from '../../ingest/prepare.js';
import { PostgresEventStore } from '../../modules/processes/event-store.postgres.js';
import { SqliteEventStore } from '../../modules/processes/event-store.sqlite.js';
import { analyzeParams } from '../params.js';
import { compilePostgresProcessCondition } from './postgres.js';
import { compileProcessCondition } from './sqlite.js';
import { SQLITE_FUNCTIONS } from './sqlite-functions.js';

const SENSOR: SensorIdentity = { id: 1, groupId: 1, hostname: 'host', hostType: 'server', osType: 'linux' };
const T0 = Date.UTC(2024, 3, 30, 10);

/** processEvents with another program, command line, domain and address. */
function appEvents(pid: number): SensorEvent[] {
  return processEvents(pid, T0 + pid).map((event) => {
    if (event.type === 'process_start') {
      return { ...event, path: 'C:\\Program Files\\App\\App.exe', cmdline: '"C:\\Program Files\\App\\App.exe" --config=C:\\cfg\\x.ini /quiet', username: 'CORP\\Bob' };
    }
    if (event.type === 'netconn') return { ...event, domain: 'login.MicrosoftOnline.com', remote_ip: '10.9.8.7', remote_port: 8080 };
    if (event.type === 'filemod') return { ...event, path: 'C:\\Users\\bob\\AppData\\Local\\Temp\\setup.tmp' };
    return event;
  });
}

const BATCHES: SensorEvent[][] = [processEvents(100, T0), appEvents(200), [...processEvents(300, T0 + 300).slice(0, 4), ...appEvents(400)]];

const QUERIES = [
  'process_name:cmd.exe', 'process_name:app*', 'path:system32\\cmd.exe', 'path:c:\\program?files\\*\\app.exe', 'path:app\\*',
  'cmdline:whoami', 'cmdline:"/c whoami"', 'cmdline:*hoa*', 'cmdline:.exe', 'cmdline:.e*', 'cmdline:/quiet', 'cmdline:"x.ini /quiet"',
  'filemod:out.txt', 'filemod:temp\\*', 'filemod:appdata\\local\\*', 'regmod:\\registry\\machine\\system\\controlset001\\services\\x',
  'modload:ntdll.dll', 'modload:*.dll', 'domain:example.com', 'domain:com', 'domain:.com', 'domain:microsoftonline.com', 'domain:login.*',
  'ipaddr:93.184.216.0/24', 'ipaddr:10.0.0.0/8', 'ipport:443', 'ipport:[1 TO 1000]', 'childproc_name:whoami.exe', 'crossproc_name:lsass.exe',
  'crossproc_type:process_open', 'md5:cccccccccccccccccccccccccccccccc', 'md5:ad7b9c14083b52bc532fba5948342b98', 'username:corp\\alice',
  'username:CORP\\B*', 'hostname:HOST', 'hostname:ho*', 'host_type:server', 'os_type:lin*', 'group:"default group"', 'netconn_count:[1 TO *]',
  '-domain:example.com', '-cmdline:whoami', 'domain:com OR cmdline:quiet', 'start:[2024-04-30T00:00:00 TO *]',
];

/** As the pipeline hands batches to the store: normalized (normalize.ts), then prepared. */
async function ingest(store: EventStore): Promise<void> {
  const batches: IngestBatch[] = BATCHES.map((sent, i) => ({
    sensor: SENSOR, sequence: i + 1, counters: new Map(),
    ...new EventPreparer(new FilterGate()).prepare(
      { sensorId: SENSOR.id, groupId: SENSOR.groupId, osType: SENSOR.osType }, sent.map((event) => normalizeEvent(structuredClone(event))),
    ),
  }));
  for (const batch of batches) await store.commit([batch]);
}

describe('the same searches give the same segments on SQLite and PostgreSQL', () => {
  const dir = tempDir('vigil-same-answers-');
  let sqlite: SqliteDatabase;
  let postgres: PostgresDatabase;
  before(async () => {
    sqlite = SqliteDatabase.open(join(dir, 'store.db'));
    await migrate(sqlite, sqliteMigrations);
    for (const [name, fn] of Object.entries(SQLITE_FUNCTIONS)) sqlite.connection.function(name, { deterministic: true }, fn);
    postgres = await freshMigratedPostgres();
    for (const db of [sqlite, postgres]) await registerSensors(db);
    const rules = { maxEventsPerSegment: 4, windowMs: 60_000 };
    await ingest(new SqliteEventStore(sqlite, rules, () => T0));
    await ingest(new PostgresEventStore(postgres, rules, () => T0));
  });
  after(async () => {
    await sqlite.close();
    await postgres.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const q of QUERIES) {
    it(q, async () => {
      const { predicate } = analyzeParams({ q }, { index: 'process', now: T0 + 86_400_000 });
      const expected = compileProcessCondition(predicate);
      const actual = compilePostgresProcessCondition(predicate);
      const found = (db: SqliteDatabase | PostgresDatabase, condition: { sql: string; params: readonly (string | number | bigint)[] }, join: string) =>
        db.all<{ pid: number; segment_id: number }>(`SELECT p.pid, s.segment_id FROM segments s JOIN processes p ON ${join} WHERE ${condition.sql} ORDER BY 1, 2`, condition.params);
      const reference = await found(sqlite, expected, 'p.id = s.process_id');
      assert.deepEqual(await found(postgres, actual, 'p.sensor_id = s.sensor_id AND p.id = s.process_id'), reference);
    });
  }

  it('finds something for most queries, so the comparisons mean something', async () => {
    const empty: string[] = [];
    for (const q of QUERIES) {
      const { predicate } = analyzeParams({ q }, { index: 'process', now: T0 + 86_400_000 });
      const compiled = compileProcessCondition(predicate);
      const rows = await sqlite.all(`SELECT 1 FROM segments s JOIN processes p ON p.id = s.process_id WHERE ${compiled.sql}`, compiled.params);
      if (rows.length === 0) empty.push(q);
    }
    assert.deepEqual(empty, []);
  });
});
