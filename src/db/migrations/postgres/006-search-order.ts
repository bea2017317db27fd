/**
 * PostgreSQL schema version 6: what process search needs to answer on millions of segments
 * without reading them all (docs/adr/0027-postgres-search-plans.md has the plans and figures).
 *
 * - `segments_in_update_order` (last_update_ms, id): the page of the newest matches is read by
 *   walking it from the newest segment, when the count says matches are dense.
 * - `segments_by_process_update` (process_id, last_update_ms, id): the newest segments of each
 *   matching process, when the matching processes are few (a LATERAL top-N per process).
 * - `segments_by_sensor_update` (sensor_id, last_update_ms, id): the newest segments of each
 *   sensor whose hosts match a condition on host columns alone (hostname, group, OS).
 * - `processes_in_start_order` (start_ms, id): pages sorted by process start, which PostgreSQL read
 *   by sorting every matching process (the BRIN index on start gives no order).
 * - `process_name_segment_counts`: segments and processes per (sensor, group, process name), the
 *   tally a query on process names (or an empty one) is counted and faceted from, grouped or not. Triggers keep it: on
 *   process_segment_counts, which the writer and partition mounts already maintain (one statement
 *   each, so one aggregate per commit), and on a process whose name or group changes (its start
 *   event arriving after its first segments). Sensor first in the key, as every sensor table.
 */
import type { Migration } from '../types.js';

/** The table of this migration that holds sensors' rows, to be distributed by sensor_id. */
export const SEARCH_TALLY_TABLES = ['process_name_segment_counts'] as const;

/** Rebuilds the tally from the per-process counts (the migration, and migrate-store after its copy). */
export const REBUILD_PROCESS_NAME_TALLY = `
  DELETE FROM process_name_segment_counts;
  INSERT INTO process_name_segment_counts (sensor_id, group_id, process_name, segments, processes)
  SELECT p.sensor_id, p.group_id, p.process_name, sum(c.segments), count(*)
  FROM process_segment_counts c JOIN processes p ON p.sensor_id = c.sensor_id AND p.id = c.process_row
  GROUP BY 1, 2, 3;
`;

/**
 * Adds each process's change (the rows of `delta`: sensor_id, process_row, segments, and processes:
 * 1 counted anew, -1 no longer counted, 0 still counted) to its name's tally.
 */
const addToTally = (delta: string) => `
  INSERT INTO process_name_segment_counts (sensor_id, group_id, process_name, segments, processes)
  SELECT p.sensor_id, p.group_id, p.process_name, sum(d.segments), sum(d.processes)
  FROM (${delta}) d JOIN processes p ON p.sensor_id = d.sensor_id AND p.id = d.process_row
  GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (sensor_id, group_id, process_name) DO UPDATE
    SET segments = process_name_segment_counts.segments + excluded.segments, processes = process_name_segment_counts.processes + excluded.processes;
`;

export const SEARCH_ORDER_MIGRATION: Migration = {
  version: 6,
  name: 'process search: segments in update order, per process, and segments per process name',
  sql: `
    CREATE INDEX segments_in_update_order ON segments (last_update_ms, id);
    CREATE INDEX segments_by_process_update ON segments (process_id, last_update_ms, id);
    CREATE INDEX segments_by_sensor_update ON segments (sensor_id, last_update_ms, id);
    CREATE INDEX processes_in_start_order ON processes (start_ms, id);

    CREATE TABLE process_name_segment_counts (
      sensor_id BIGINT NOT NULL,
      group_id BIGINT NOT NULL,
      process_name TEXT COLLATE "C" NOT NULL,
      segments BIGINT NOT NULL,
      processes BIGINT NOT NULL,
      PRIMARY KEY (sensor_id, group_id, process_name)
    );
    ${REBUILD_PROCESS_NAME_TALLY}

    CREATE FUNCTION process_name_tally_added() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      ${addToTally('SELECT sensor_id, process_row, segments, 1 AS processes FROM added')}
      RETURN NULL;
    END $$;
    CREATE FUNCTION process_name_tally_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      ${addToTally(`SELECT a.sensor_id, a.process_row, a.segments - b.segments AS segments, 0 AS processes
        FROM after_change a JOIN before_change b ON b.sensor_id = a.sensor_id AND b.process_row = a.process_row`)}
      RETURN NULL;
    END $$;
    CREATE FUNCTION process_name_tally_removed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      ${addToTally('SELECT sensor_id, process_row, -segments AS segments, -1 AS processes FROM removed')}
      RETURN NULL;
    END $$;
    CREATE TRIGGER process_name_tally_added AFTER INSERT ON process_segment_counts
      REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION process_name_tally_added();
    CREATE TRIGGER process_name_tally_changed AFTER UPDATE ON process_segment_counts
      REFERENCING OLD TABLE AS before_change NEW TABLE AS after_change FOR EACH STATEMENT EXECUTE FUNCTION process_name_tally_changed();
    CREATE TRIGGER process_name_tally_removed AFTER DELETE ON process_segment_counts
      REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION process_name_tally_removed();

    -- A process renamed (its start event came after its first segments) or regrouped: its segments move.
    CREATE FUNCTION process_name_tally_moved() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE counted BIGINT;
    BEGIN
      SELECT segments INTO counted FROM process_segment_counts WHERE sensor_id = NEW.sensor_id AND process_row = NEW.id;
      IF counted IS NULL THEN RETURN NULL; END IF;
      INSERT INTO process_name_segment_counts (sensor_id, group_id, process_name, segments, processes)
      VALUES (OLD.sensor_id, OLD.group_id, OLD.process_name, -counted, -1), (NEW.sensor_id, NEW.group_id, NEW.process_name, counted, 1)
      ON CONFLICT (sensor_id, group_id, process_name) DO UPDATE
        SET segments = process_name_segment_counts.segments + excluded.segments, processes = process_name_segment_counts.processes + excluded.processes;
      RETURN NULL;
    END $$;
    CREATE TRIGGER process_name_tally_moved AFTER UPDATE OF process_name, group_id ON processes FOR EACH ROW
      WHEN (OLD.process_name IS DISTINCT FROM NEW.process_name OR OLD.group_id IS DISTINCT FROM NEW.group_id)
      EXECUTE FUNCTION process_name_tally_moved();
  `,
};
