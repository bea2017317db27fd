/**
 * Reading what the ingest path stored, for tests of what comes after it (detection): the segment
 * rows of a sensor's processes, read from the app's SQLite file over a read-only connection, or
 * from its PostgreSQL database over a connection of the test's own.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { PostgresDatabase } from '../../src/db/dialects/postgres.js';
import { SQLITE_FILE } from '../../src/db/open.js';
import type { TestApp } from './app.js';

export interface StoredSegment {
  segmentRow: number;
  segmentId: number;
  processRow: number;
  pid: number;
}

const SEGMENTS = `SELECT s.id AS "segmentRow", s.segment_id AS "segmentId", p.id AS "processRow", p.pid
  FROM segments s JOIN processes p ON p.id = s.process_id WHERE p.sensor_id = ? AND (? IS NULL OR p.pid = ?) ORDER BY s.id`;

/** The segments of the sensor's processes, oldest first; optionally only those of one pid. */
export async function storedSegments(test: TestApp, sensorId: number, pid?: number): Promise<StoredSegment[]> {
  const params = [sensorId, pid ?? null, pid ?? null];
  if (test.config.databaseUrl !== undefined) {
    const db = PostgresDatabase.open(test.config.databaseUrl, { poolSize: 1 });
    try {
      return await db.all<StoredSegment>(SEGMENTS.replace('? IS NULL', '?::bigint IS NULL'), params);
    } finally {
      await db.close();
    }
  }
  const db = new Database(join(test.config.dataDir, SQLITE_FILE), { readonly: true });
  try {
    return db.prepare(SEGMENTS).all(...params) as StoredSegment[];
  } finally {
    db.close();
  }
}
