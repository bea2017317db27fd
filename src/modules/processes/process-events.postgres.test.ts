/**
 * Process detail and segment event reads on PostgreSQL answer as the embedded store's do: every
 * process of the same ingested fleet found, with its segments, its events per segment, its
 * binary's frequency and its formatted event lists (all four API versions).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bothStores, type BothStores } from '../../../test/support/both-stores.js';
import { SqliteReadPool } from '../../db/dialects/sqlite-read-pool.js';
import { sqliteSegmentChunks } from './chunk-files.sqlite.js';
import { EVENT_API_VERSIONS } from './event-formats/index.js';
import { SqlProcessDetailStore, type ProcessDetailStore } from './process-detail.store.js';
import { PostgresEventListStore, PostgresProcessDetailStore } from './process-events.postgres.js';
import { PooledEventListStore, READ_HANDLERS } from '../../wiring/sqlite-read-stores.js';
import type { EventListStore } from './process-events.store.js';

/** Row ids are each store's own: everything else must agree. */
const withoutRows = (value: unknown): unknown => JSON.parse(JSON.stringify(value, (key, v: unknown) => (key === 'row' ? undefined : v)));

describe('process detail and event reads on PostgreSQL answer as on SQLite', () => {
  let stores: BothStores;
  let pool: SqliteReadPool;
  let sides: { detail: ProcessDetailStore; lists: EventListStore }[];
  let processes: { sensor_id: number; pid: number; start_ms: number }[];
  before(async () => {
    stores = await bothStores();
    pool = new SqliteReadPool(stores.sqlite.connection.name, { workers: 1, handlers: { [READ_HANDLERS.processEvents.name]: READ_HANDLERS.processEvents.url } });
    sides = [
      { detail: new SqlProcessDetailStore(stores.sqlite, sqliteSegmentChunks(stores.sqlite)), lists: new PooledEventListStore(pool) },
      { detail: new PostgresProcessDetailStore(stores.postgres), lists: new PostgresEventListStore(stores.postgres) },
    ];
    processes = await stores.sqlite.all('SELECT sensor_id, pid, start_ms FROM processes ORDER BY sensor_id, pid');
  });
  after(async () => {
    await pool.close();
    await stores.close();
  });

  it('finds every process with the same segments, events and binary frequency', async () => {
    assert.ok(processes.length >= 6);
    for (const { sensor_id: sensorId, pid, start_ms: startMs } of processes) {
      const key = { sensorId, pid, startMs };
      const answers = [];
      for (const { detail } of sides) {
        const process = (await detail.find(key))!;
        const segments = await detail.segments(process.row);
        const events = await detail.events(key, segments.map((s) => s.row));
        const frequency = await detail.md5Frequency(process.md5, 'all');
        answers.push(withoutRows({ process, segments, events, frequency }));
      }
      assert.deepEqual(answers[1], answers[0], `${sensorId}/${pid}`);
      assert.ok(((answers[0] as { events: unknown[][] }).events.flat()).length > 0);
    }
  });

  it('lists the same events in every API version, windowed', async () => {
    for (const { sensor_id: sensorId, pid, start_ms: startMs } of processes) {
      for (const version of EVENT_API_VERSIONS) {
        const answers = [];
        for (const { detail, lists } of sides) {
          const process = (await detail.find({ sensorId, pid, startMs }))!;
          const segmentRows = (await detail.segments(process.row)).map((s) => s.row);
          answers.push(await lists.list({ pid, startMs, sensorId, segmentRows, window: { start: 1, count: 5 }, version }));
        }
        assert.deepEqual(answers[1], answers[0], `${sensorId}/${pid} v${version}`);
      }
    }
  });
});
