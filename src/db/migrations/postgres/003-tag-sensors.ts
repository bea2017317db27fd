/**
 * PostgreSQL schema version 3: the tags of process documents (watchlist and feed hits) and the
 * tagged events carry their sensor in the primary key, as the event tables do (002-events.ts),
 * so Citus can distribute them by sensor id beside the segments they tag (issue 18 point 6;
 * src/db/migrations/postgres/events-shardable.test.ts). sensor_id goes last in each key, so
 * the lookups by owner and segment row, or by id, keep their index. Their foreign keys point
 * only at tables every sensor shares (watchlists, reports, investigations: Citus reference
 * tables), which Citus allows.
 *
 * A tag is given its segment's sensor, also for segments of an unmounted partition, whose
 * tables are detached; a tag whose segment no longer exists tags nothing and goes. A tagged
 * event is given the sensor its process id packs (domain/process-id.ts), 0 for a note that
 * names no process.
 */
import type { Migration } from '../types.js';

/** The tables of this migration that hold sensors' rows, to be distributed by sensor_id. */
export const TAG_SENSOR_TABLES = ['watchlist_process_hits', 'feed_process_hits', 'watchlist_hosts', 'report_hosts', 'tagged_events'] as const;

export const TAG_SENSORS_MIGRATION: Migration = {
  version: 3,
  name: 'the sensor in the key of each process tag and tagged event',
  sql: `
    DO $$
    DECLARE part RECORD;
    BEGIN
      FOR part IN SELECT id FROM event_partitions LOOP
        IF to_regclass(format('segments_p%s', part.id)) IS NOT NULL THEN
          EXECUTE format('UPDATE watchlist_process_hits h SET sensor_id = s.sensor_id FROM segments_p%s s
            WHERE h.sensor_id IS NULL AND s.id = h.segment_row', part.id);
          EXECUTE format('UPDATE feed_process_hits h SET sensor_id = s.sensor_id FROM segments_p%s s
            WHERE h.sensor_id IS NULL AND s.id = h.segment_row', part.id);
        END IF;
      END LOOP;
    END $$;
    DELETE FROM watchlist_process_hits WHERE sensor_id IS NULL;
    DELETE FROM feed_process_hits WHERE sensor_id IS NULL;
    ALTER TABLE watchlist_process_hits ALTER COLUMN sensor_id SET NOT NULL,
      DROP CONSTRAINT watchlist_process_hits_pkey, ADD PRIMARY KEY (watchlist_id, segment_row, sensor_id);
    ALTER TABLE feed_process_hits ALTER COLUMN sensor_id SET NOT NULL,
      DROP CONSTRAINT feed_process_hits_pkey, ADD PRIMARY KEY (report_row, segment_row, sensor_id);

    ALTER TABLE tagged_events ADD COLUMN sensor_id BIGINT NOT NULL DEFAULT 0;
    UPDATE tagged_events SET sensor_id = ('x' || substr(process_guid, 1, 8))::bit(32)::bigint
      WHERE process_guid ~ '^[0-9a-fA-F]{8}-';
    ALTER TABLE tagged_events ALTER COLUMN sensor_id DROP DEFAULT,
      DROP CONSTRAINT tagged_events_pkey, ADD PRIMARY KEY (id, sensor_id);
  `,
};
