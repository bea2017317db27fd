/**
 * The contract of DashboardStore, run against every dialect and, on SQLite, the read pool's handler
 * too (dashboard.store.test.ts). The rows it
 * counts are written as the ingest path and the detection sink leave them; alerts by status are
 * covered through the real sink in dashboard.routes.test.ts.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import type { DashboardStore } from './dashboard.store.js';

const NOW = 1_800_000_000_000;
const HOUR = 3_600_000;

/** Two groups, a sensor in each, a process (one segment) per sensor, a binary each sensor saw, and hits at known times. */
async function seed(db: SqlDatabase): Promise<number> {
  await db.run(`INSERT INTO sensor_groups (id, name, site_id) VALUES (2, 'Lab', 1)`);
  for (const [sensor, group, md5] of [[1, 1, 'a'.repeat(32)], [2, 2, 'b'.repeat(32)]] as const) {
    await db.run(
      `INSERT INTO sensors (id, group_id, secret_hash, os_type, host_type, computer_name, build_version_string, registration_ms)
       VALUES (?, ?, 'x', 'windows', 'workstation', ?, '006.001.002.71109', ?)`, [sensor, group, `HOST-${sensor}`, NOW],
    );
    await db.run(`INSERT INTO processes (id, sensor_id, pid, start_ms, group_id, hostname, host_type, os_type) VALUES (?, ?, 100, ?, ?, 'h', 'workstation', 'windows')`,
      [sensor, sensor, NOW, group]);
    // PostgreSQL's segments carry their sensor (its distribution key); SQLite's find it through the process.
    const [sensorColumn, sensorValue] = db.dialect === 'postgres' ? [', sensor_id', ', ?'] : ['', ''];
    await db.run(`INSERT INTO segments (id, process_id, segment_id, first_event_ms, last_update_ms, last_server_update_ms${sensorColumn})
      VALUES (?, ?, ?, ?, ?, ?${sensorValue})`, [sensor, sensor, NOW, NOW, NOW, NOW, ...(db.dialect === 'postgres' ? [sensor] : [])]);
    await db.run(`INSERT INTO host_segment_counts (sensor_id, group_id, hostname, host_type, os_type, segments) VALUES (?, ?, 'h', 'workstation', 'windows', 1)`,
      [sensor, group]);
    await db.run(`INSERT INTO binaries (md5, size, metadata, first_seen_ms, last_seen_ms) VALUES (?, 1, '{}', ?, ?)`,
      [md5, sensor === 1 ? NOW - 2 * 24 * HOUR : NOW - HOUR, NOW]);
    await db.run(`INSERT INTO binary_observations (md5, sensor_id, observed_filename, last_seen_ms) VALUES (?, ?, 'x.exe', ?)`, [md5, sensor, NOW]);
  }
  const watchlist = await db.get<{ id: number }>(
    `INSERT INTO watchlists (name, search_query, index_type, enabled, readonly, group_id, from_alliance, date_added_ms)
     VALUES ('w', 'q=x', 'events', 1, 0, -1, 0, ?) RETURNING id`, [NOW],
  );
  for (const [row, hitMs] of [[1, NOW - 10 * HOUR], [2, NOW - 30 * 60_000]] as const) {
    await db.run(`INSERT INTO watchlist_process_hits (watchlist_id, segment_row, hit_ms, sensor_id)
      SELECT ?, s.id, ?, p.sensor_id FROM segments s JOIN processes p ON p.id = s.process_id WHERE s.id = ?`, [watchlist!.id, hitMs, row]);
  }
  await db.run('INSERT INTO watchlist_binary_hits (watchlist_id, md5, hit_ms) VALUES (?, ?, ?)', [watchlist!.id, 'a'.repeat(32), NOW - 8 * 24 * HOUR]);
  return watchlist!.id;
}

/** `make` builds the store under test over a fresh database. */
export function dashboardStoreContract(fresh: () => Promise<SqlDatabase>, make: (db: SqlDatabase) => DashboardStore): void {
  const windows = [NOW - HOUR, NOW - 24 * HOUR, NOW - 9 * 24 * HOUR];

  it('counts nothing in an empty store', async () => {
    const store = make(await fresh());
    assert.deepEqual(await store.counts({ groups: null, newBinariesSinceMs: NOW - 24 * HOUR, hitsSinceMs: windows }), {
      processes: 0, documents: 0, binaries: 0, newBinaries: 0, alerts: {}, watchlistHits: [0, 0, 0],
    });
  });

  it('counts every group for null, and hits in each window from its start', async () => {
    const db = await fresh();
    await seed(db);
    assert.deepEqual(await make(db).counts({ groups: null, newBinariesSinceMs: NOW - 24 * HOUR, hitsSinceMs: windows }), {
      processes: 2, documents: 2, binaries: 2, newBinaries: 1, alerts: {}, watchlistHits: [1, 2, 3],
    });
  });

  it('counts within the given groups only', async () => {
    const db = await fresh();
    await seed(db);
    const store = make(db);
    assert.deepEqual(await store.counts({ groups: [1], newBinariesSinceMs: NOW - 24 * HOUR, hitsSinceMs: windows }), {
      processes: 1, documents: 1, binaries: 1, newBinaries: 0, alerts: {}, watchlistHits: [0, 1, 2],
    });
    assert.deepEqual(await store.counts({ groups: [], newBinariesSinceMs: NOW - 24 * HOUR, hitsSinceMs: windows }), {
      processes: 0, documents: 0, binaries: 0, newBinaries: 0, alerts: {}, watchlistHits: [0, 0, 0],
    });
  });
}
