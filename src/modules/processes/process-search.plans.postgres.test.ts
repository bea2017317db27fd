/**
 * Every page plan of PostgreSQL's process search (process-search.pages.postgres.ts) gives the
 * embedded store's documents, in its order, with its totals: each plan is forced in turn on the
 * small fleet, where the figures alone would always choose the same one. The walk is forced to
 * start one segment long, so it ends short and grows until it holds the page (grouped, the walk
 * that lists each matching process at its first segment). Then the process
 * name tally (schema version 6): it agrees with the per-process counts after a process's start
 * event arrives in a later commit than its first segments, which renames the process. And a
 * host renamed between two processes, whose sensor matches a hostname query only in part.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bothStores, FLEET_T0, type BothStores } from '../../../test/support/both-stores.js';
import { registerSensors } from '../../../test/support/event-stores.js';
import { freshMigratedPostgres } from '../../../test/support/postgres-migrated.js';
import { processEvents } from '../../../test/support/sensors.js';
import type { PostgresDatabase } from '../../db/dialects/postgres.js';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import { SqliteReadPool } from '../../db/dialects/sqlite-read-pool.js';
import type { SensorEvent } from '../../ingest/event.schemas.js';
import { FilterGate } from '../../ingest/ingress-gate.js';
import { normalizeEvent } from '../../ingest/normalize.js';
import { EventPreparer } from '../../ingest/prepare.js';
import { analyzeParams } from '../../query/params.js';
import { PooledProcessSearchStore, READ_HANDLERS } from '../../wiring/sqlite-read-stores.js';
import { PostgresEventStore } from './event-store.postgres.js';
import type { ForcedPagePlan } from './process-search.pages.postgres.js';
import type { ProcessSearchRequest, ProcessSearchResult } from './process-search.plan.js';
import { PostgresProcessSearchStore } from './process-search.postgres.js';

interface Case { q: string; start?: number; rows?: number; ascending?: boolean; grouped?: boolean; groups?: number[]; facets?: string[] }

const CASES: Case[] = [
  { q: '' },
  { q: '', start: 3, rows: 4 },
  { q: '', ascending: true, start: 1, rows: 5 },
  { q: 'process_name:cmd.exe', facets: ['process_name', 'hostname'] },
  { q: 'process_name:cmd.exe', start: 2, rows: 2 },
  { q: 'process_name:cmd.exe username:corp\\alice', facets: ['process_name'] },
  { q: 'process_name:cmd.exe', groups: [1], facets: ['process_name'] },
  { q: 'hostname:other' },
  { q: 'hostname:host', start: 1, rows: 2 },
  { q: '', groups: [1], start: 2, rows: 3 },
  { q: 'cmdline:x.ini', ascending: true },
  { q: 'cmdline:*.ini* -cmdline:*whoa* hostname:host', grouped: true },
  { q: 'cmdline:*.ini*', start: 1, rows: 2 },
  { q: 'domain:com', start: 1, rows: 3 },
  { q: 'netconn_count:[1 TO *]', start: 1, rows: 3 },
  { q: 'domain:com process_name:cmd.exe', start: 1, rows: 3 },
  { q: 'process_name:cmd.exe', grouped: true, facets: ['process_name'] },
  { q: 'process_name:cmd.exe', grouped: true, ascending: true, start: 1, rows: 2 },
  { q: 'cmdline:*.ini*', grouped: true, groups: [1], start: 1, rows: 2 },
  { q: '', grouped: true, start: 1, rows: 3, facets: ['process_name', 'hostname'] },
  { q: '', facets: ['process_name'], rows: 0 },
];

const PLANS: (ForcedPagePlan | undefined)[] = [
  undefined, { plan: 'walk', firstLength: 1 }, { plan: 'per-process' }, { plan: 'per-sensor' }, { plan: 'planned' },
];

const comparable = (result: ProcessSearchResult) => ({
  total: result.total,
  rows: result.rows.map((r) => [r.sensor_id, r.pid, r.segment_id, r.last_update_ms]),
  facets: result.facets,
});

describe('every page plan on PostgreSQL gives the embedded store’s page', () => {
  let stores: BothStores;
  let pool: SqliteReadPool;
  before(async () => {
    stores = await bothStores();
    pool = new SqliteReadPool(stores.sqlite.connection.name, { workers: 1, handlers: { [READ_HANDLERS.processSearch.name]: READ_HANDLERS.processSearch.url } });
  });
  after(async () => {
    await pool.close();
    await stores.close();
  });

  for (const [i, c] of CASES.entries()) {
    const name = `${c.q || '(all)'}${c.grouped ? ' grouped' : ''}${c.ascending ? ' oldest first' : ''} from ${c.start ?? 0}${c.groups ? ` in groups ${c.groups}` : ''}`;
    it(name, async () => {
      const now = FLEET_T0 + 86_400_000;
      const request: ProcessSearchRequest = {
        predicate: analyzeParams({ q: c.q }, { index: 'process', now }).predicate, visibleGroups: c.groups ?? null,
        sort: { key: 'last_update', descending: !c.ascending }, start: c.start ?? 0, rows: c.rows ?? 100, grouped: c.grouped ?? false,
        facets: c.facets ?? [], nowMs: now,
      };
      const expected = comparable(await new PooledProcessSearchStore(pool).search(request, { key: `case-${i}`, fresh: true }));
      assert.ok(expected.total > 0 && (request.rows === 0 || expected.rows.length > 0), 'the case finds something');
      for (const plan of PLANS) {
        const actual = await new PostgresProcessSearchStore(stores.postgres, undefined, undefined, plan).search(request, { key: `case-${i}`, fresh: true });
        assert.deepEqual(comparable(actual), expected, `plan ${plan?.plan ?? 'chosen'}`);
      }
    });
  }
});

describe('the process name tally', () => {
  let db: PostgresDatabase;
  before(async () => {
    db = await freshMigratedPostgres();
    await registerSensors(db);
  });
  after(async () => db.close());

  /** The tally as the per-process counts and the processes' current names and groups give it. */
  const recounted = () => db.all(
    `SELECT p.sensor_id, p.group_id, p.process_name, sum(c.segments)::bigint AS segments, count(*)::bigint AS processes
     FROM process_segment_counts c JOIN processes p ON p.sensor_id = c.sensor_id AND p.id = c.process_row GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
  );
  const tallied = () => db.all(
    'SELECT sensor_id, group_id, process_name, segments, processes FROM process_name_segment_counts WHERE segments <> 0 ORDER BY 1, 2, 3',
  );

  it('moves a process’s segments to its name when its start event comes after them', async () => {
    const store = new PostgresEventStore(db, { maxEventsPerSegment: 2, windowMs: 60_000 }, () => FLEET_T0);
    const sensor: SensorIdentity = { id: 1, groupId: 1, hostname: 'host', hostType: 'server', osType: 'linux' };
    const [start, ...rest] = processEvents(700, FLEET_T0);
    const batches: SensorEvent[][] = [processEvents(800, FLEET_T0), rest, [start!, ...processEvents(900, FLEET_T0 + 5)]];
    for (const [i, sent] of batches.entries()) {
      const prepared = new EventPreparer(new FilterGate()).prepare(
        { sensorId: sensor.id, groupId: sensor.groupId, osType: sensor.osType }, sent.map((event) => normalizeEvent(structuredClone(event))),
      );
      await store.commit([{ sensor, sequence: i + 1, counters: new Map(), ...prepared }]);
      assert.deepEqual(await tallied(), await recounted(), `after commit ${i + 1}`);
    }
    const names = (await tallied()).map((row) => (row as { process_name: string }).process_name);
    assert.deepEqual(names, ['cmd.exe'], 'the nameless process was renamed, and its segments moved with it');
    const now = FLEET_T0 + 86_400_000;
    const search = await new PostgresProcessSearchStore(db).search({
      predicate: analyzeParams({ q: 'process_name:cmd.exe' }, { index: 'process', now }).predicate, visibleGroups: null,
      sort: { key: 'last_update', descending: true }, start: 0, rows: 0, grouped: false, facets: ['process_name'], nowMs: now,
    }, { key: 'tally', fresh: true });
    const segments = (await db.get<{ n: number }>('SELECT count(*)::bigint AS n FROM segments'))!.n;
    assert.equal(search.total, segments);
    assert.deepEqual(search.facets.process_name, [{ name: 'cmd.exe', count: segments }]);
  });
});

describe('a host renamed between its processes', () => {
  let db: PostgresDatabase;
  before(async () => {
    db = await freshMigratedPostgres();
    await registerSensors(db);
  });
  after(async () => db.close());

  it('leaves the per-sensor page for one that checks each process’s host', async () => {
    const store = new PostgresEventStore(db, { maxEventsPerSegment: 2, windowMs: 60_000 }, () => FLEET_T0);
    const named = (hostname: string): SensorIdentity => ({ id: 1, groupId: 1, hostname, hostType: 'server', osType: 'linux' });
    for (const [i, [sensor, events]] of ([[named('host'), processEvents(100, FLEET_T0)], [named('renamed'), processEvents(200, FLEET_T0 + 1_000)]] as const).entries()) {
      const prepared = new EventPreparer(new FilterGate()).prepare(
        { sensorId: 1, groupId: 1, osType: 'linux' }, events.map((event) => normalizeEvent(structuredClone(event))),
      );
      await store.commit([{ sensor, sequence: i + 1, counters: new Map(), ...prepared }]);
    }
    const now = FLEET_T0 + 86_400_000;
    const request: ProcessSearchRequest = {
      predicate: analyzeParams({ q: 'hostname:host' }, { index: 'process', now }).predicate, visibleGroups: null,
      sort: { key: 'last_update', descending: true }, start: 0, rows: 100, grouped: false, facets: [], nowMs: now,
    };
    const chosen = await new PostgresProcessSearchStore(db).search(request, { key: 'chosen', fresh: true });
    const planned = await new PostgresProcessSearchStore(db, undefined, undefined, { plan: 'planned' }).search(request, { key: 'planned', fresh: true });
    const own = (await db.get<{ n: number }>('SELECT count(*)::bigint AS n FROM segments s JOIN processes p ON p.id = s.process_id WHERE p.pid = 100'))!.n;
    assert.equal(chosen.total, own);
    assert.deepEqual(chosen.rows.map((r) => [r.pid, r.segment_row]), planned.rows.map((r) => [r.pid, r.segment_row]));
    assert.deepEqual(new Set(chosen.rows.map((r) => r.pid)), new Set([100]));
  });
});
