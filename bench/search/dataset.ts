/**
 * A run's own copy of the cached search dataset (generate.ts), so runs start from the same data
 * and never change the cache.
 *
 * The cache outlives merges that renumber migrations (branches append theirs and the merger
 * renumbers), and regenerating it costs ~13 minutes of both cores. So the copy's schema is matched
 * to this build's migrations by name: a migration already applied under another number keeps its
 * tables and takes this build's number; one it lacks is applied now.
 */
import Database from 'better-sqlite3';
import { cpSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQLITE_FILE } from '../../src/db/open.js';
import { sqliteMigrations } from '../../src/db/migrations/sqlite.js';

/** Copies the dataset in `dir` to a new temporary dir and returns that dir. */
export function copyDataset(dir: string, prefix: string): string {
  const runDir = mkdtempSync(join(tmpdir(), prefix));
  for (const file of [SQLITE_FILE, `${SQLITE_FILE}-wal`, `${SQLITE_FILE}-shm`]) {
    try {
      cpSync(join(dir, file), join(runDir, file));
    } catch {
      // No WAL left by a clean close.
    }
  }
  // The event chunk files; a dataset generated before they existed has its chunks in the database.
  if (existsSync(join(dir, 'events'))) cpSync(join(dir, 'events'), join(runDir, 'events'), { recursive: true });
  renumberMigrations(join(runDir, SQLITE_FILE));
  return runDir;
}

function renumberMigrations(file: string): void {
  const db = new Database(file);
  try {
    db.transaction(() => {
      const applied = new Set((db.prepare('SELECT name FROM schema_migrations').pluck().all() as string[]));
      for (const migration of sqliteMigrations) if (!applied.has(migration.name)) db.exec(migration.sql);
      db.exec('DELETE FROM schema_migrations');
      const insert = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
      for (const migration of sqliteMigrations) insert.run(migration.version, migration.name, new Date().toISOString());
    })();
  } finally {
    db.close();
  }
}

/**
 * Tags the copy as three watchlists that hit every 10th, 7th and 25th segment would (565,743
 * hits on the 2M-segment dataset), so each result page reads its processes' tags. The watchlists
 * are disabled, so the matcher leaves them alone while the benchmark runs.
 */
export function addWatchlistHits(runDir: string): void {
  const db = new Database(join(runDir, SQLITE_FILE));
  try {
    db.transaction(() => {
      const watchlist = db.prepare(`INSERT INTO watchlists (id, name, search_query, index_type, enabled, readonly, group_id, from_alliance, date_added_ms)
        VALUES (?, ?, 'q=process_name%3Abench.exe', 'events', 0, 0, -1, 0, 0)`);
      const hits = db.prepare(`INSERT INTO watchlist_process_hits (watchlist_id, segment_row, hit_ms, sensor_id)
        SELECT ?, s.id, ?, p.sensor_id FROM segments s JOIN processes p ON p.id = s.process_id WHERE s.id % ? = 0`);
      for (const [id, every] of [[901, 10], [902, 7], [903, 25]] as const) {
        watchlist.run(id, `bench every ${every}th segment`);
        hits.run(id, Date.now(), every);
      }
    })();
  } finally {
    db.close();
  }
}
