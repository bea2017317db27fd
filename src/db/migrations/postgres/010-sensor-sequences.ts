/**
 * PostgreSQL schema version 10, as SQLite's migration 25: each sensor's last upload sequence moves
 * off its `sensors` row into a table of the event side. The event writer locks and updates that
 * sequence in every commit; on the sensor row, those locks and updates made check-ins of the same
 * sensors (SERIALIZABLE) fail to serialize, twenty times in a row under ingest, and lost them
 * (issue 18). Keyed by sensor id alone, the table is distributed with the events (point 6).
 */
import type { Migration } from '../types.js';

export const SENSOR_SEQUENCE_TABLES = ['sensor_sequences'] as const;

export const SENSOR_SEQUENCES_MIGRATION: Migration = {
  version: 10,
  name: 'sensor upload sequences in a table of their own',
  sql: `
    CREATE TABLE sensor_sequences (
      sensor_id BIGINT PRIMARY KEY,
      last_sequence BIGINT NOT NULL
    );
    INSERT INTO sensor_sequences (sensor_id, last_sequence) SELECT id, last_sequence FROM sensors WHERE last_sequence <> 0;
    ALTER TABLE sensors DROP COLUMN last_sequence;
  `,
};
