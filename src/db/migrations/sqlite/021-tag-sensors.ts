/**
 * SQLite schema version 21: the sensor of every tag of a process document (watchlist and feed
 * hits) and of every tagged event, as PostgreSQL's version 3 keeps it for distribution by
 * sensor. The embedded store is not distributed; it holds the column so that one store's SQL
 * writes both databases alike (src/db/migrations/postgres.test.ts checks the parity).
 */
import type { Migration } from '../types.js';

/** The sensor id packed in the first 8 hex digits of a process id (domain/process-id.ts), or 0 for none. */
const GUID_SENSOR = (() => {
  const digits = Array.from({ length: 8 }, (_, i) => `(instr('0123456789abcdef', substr(lower(process_guid), ${i + 1}, 1)) - 1) * ${16 ** (7 - i)}`);
  return `CASE WHEN process_guid GLOB '${'[0-9a-fA-F]'.repeat(8)}-*' THEN ${digits.join(' + ')} ELSE 0 END`;
})();

const SEGMENT_SENSOR = (hits: string) =>
  `coalesce((SELECT p.sensor_id FROM segments s JOIN processes p ON p.id = s.process_id WHERE s.id = ${hits}.segment_row), 0)`;

export const TAG_SENSORS_MIGRATION: Migration = {
  version: 21,
  name: 'the sensor of each process tag and tagged event',
  sql: `
    ALTER TABLE watchlist_process_hits ADD COLUMN sensor_id INTEGER NOT NULL DEFAULT 0;
    UPDATE watchlist_process_hits SET sensor_id = ${SEGMENT_SENSOR('watchlist_process_hits')};
    ALTER TABLE feed_process_hits ADD COLUMN sensor_id INTEGER NOT NULL DEFAULT 0;
    UPDATE feed_process_hits SET sensor_id = ${SEGMENT_SENSOR('feed_process_hits')};
    -- 0 for a note that names no process.
    ALTER TABLE tagged_events ADD COLUMN sensor_id INTEGER NOT NULL DEFAULT 0;
    UPDATE tagged_events SET sensor_id = ${GUID_SENSOR};
  `,
};
