/**
 * PostgreSQL schema version 2: the event side, designed for PostgreSQL rather than translated
 * from SQLite (docs/adr/0019-postgres-event-store.md has the measurements behind each choice).
 *
 * - Every event-side table carries `sensor_id` in its primary key and in each unique constraint
 *   (after the row id where reads look rows up by it alone), and no foreign key joins them, so that Citus can distribute them by sensor id as they are
 *   (issue 18 point 6; test: src/db/migrations/postgres/events-shardable.test.ts). The term
 *   dictionary and the partition list hold no sensor's rows: they are Citus reference tables.
 * - Segments, their event chunks and their term sets are partitioned by range of `segment_id`
 *   (the server time the segment opened, ms): one PostgreSQL partition per storage partition of
 *   the API, so rollover, unmount, mount and deletion are DDL on whole partitions. The first
 *   partition (`writer`, hot) covers every time; a rollover bounds it.
 * - Event chunks are stored deflated (raw deflate of the event-codec text) in BYTEA, kept out of
 *   PostgreSQL's own compression (STORAGE EXTERNAL), which would only compress them again.
 * - Search terms: a segment's terms are `field:value` strings in arrays (one row per chunk that
 *   brought new terms) under a GIN index; the distinct (field, value) pairs are kept in
 *   `event_terms` for wildcards (prefix through its B-tree in C collation, other patterns
 *   through trigrams). Command-line words are an array on the process row, under GIN.
 * - Times are read through BRIN indexes: segments are written in time order.
 * - Text the query language matches by prefix or compares as SQLite does (process names, paths,
 *   hashes, host and user names, term values) is in C collation: byte order, and LIKE 'x%'
 *   served by the B-tree.
 * - Row ids (processes, segments) come from one sequence in blocks of 1,000, so every Vigil
 *   server hands out its own block without asking the database per row.
 */
import type { Migration } from '../types.js';

/** The tables holding sensors' rows: each to be distributed by sensor_id. */
export const SENSOR_TABLES = [
  'processes', 'segments', 'event_chunks', 'segment_terms', 'process_segment_counts', 'host_segment_counts',
] as const;
/** The tables every sensor's rows share (Citus reference tables). */
export const SHARED_TABLES = ['event_terms', 'event_partitions', 'event_storage'] as const;

export const EVENTS_MIGRATION: Migration = {
  version: 2,
  name: 'event store: processes, partitioned segments, deflated chunks, term arrays, counts',
  sql: `
    CREATE EXTENSION IF NOT EXISTS pg_trgm;

    CREATE SEQUENCE event_row_ids INCREMENT BY 1000;

    -- One row per process, identified as Carbon Black does by sensor, pid and start (sensor clock).
    CREATE TABLE processes (
      sensor_id BIGINT NOT NULL,
      id BIGINT NOT NULL,
      pid BIGINT NOT NULL,
      start_ms BIGINT NOT NULL,
      group_id BIGINT NOT NULL,
      hostname TEXT COLLATE "C" NOT NULL,
      host_type TEXT NOT NULL,
      os_type TEXT NOT NULL,
      path TEXT COLLATE "C" NOT NULL DEFAULT '',
      process_name TEXT COLLATE "C" NOT NULL DEFAULT '',
      cmdline TEXT NOT NULL DEFAULT '',
      username TEXT COLLATE "C" NOT NULL DEFAULT '',
      uid TEXT NOT NULL DEFAULT '',
      md5 TEXT COLLATE "C" NOT NULL DEFAULT '',
      sha256 TEXT COLLATE "C" NOT NULL DEFAULT '',
      parent_pid BIGINT NOT NULL DEFAULT -1,
      parent_start_ms BIGINT,
      parent_name TEXT COLLATE "C" NOT NULL DEFAULT '',
      parent_md5 TEXT COLLATE "C" NOT NULL DEFAULT '',
      end_ms BIGINT,
      cmdline_words TEXT[] NOT NULL DEFAULT '{}',
      PRIMARY KEY (sensor_id, id),
      UNIQUE (sensor_id, pid, start_ms)
    );
    CREATE INDEX processes_by_parent ON processes (sensor_id, parent_pid, parent_start_ms);
    CREATE INDEX processes_by_name ON processes (process_name);
    CREATE INDEX processes_by_md5 ON processes (md5);
    CREATE INDEX processes_by_hostname ON processes (hostname);
    CREATE INDEX processes_by_username ON processes (username);
    CREATE INDEX processes_by_parent_name ON processes (parent_name);
    CREATE INDEX processes_by_parent_md5 ON processes (parent_md5);
    CREATE INDEX processes_by_start ON processes USING brin (start_ms);
    CREATE INDEX processes_by_group ON processes (group_id);
    CREATE INDEX processes_by_cmdline_word ON processes USING gin (cmdline_words);

    -- A process's events in segments (reference core §1.1); segment_id is the server time it opened.
    CREATE TABLE segments (
      sensor_id BIGINT NOT NULL,
      id BIGINT NOT NULL,
      process_id BIGINT NOT NULL,
      segment_id BIGINT NOT NULL,
      first_event_ms BIGINT NOT NULL,
      last_update_ms BIGINT NOT NULL,
      last_server_update_ms BIGINT NOT NULL,
      event_count INTEGER NOT NULL DEFAULT 0,
      filemod_count INTEGER NOT NULL DEFAULT 0,
      regmod_count INTEGER NOT NULL DEFAULT 0,
      netconn_count INTEGER NOT NULL DEFAULT 0,
      modload_count INTEGER NOT NULL DEFAULT 0,
      childproc_count INTEGER NOT NULL DEFAULT 0,
      crossproc_count INTEGER NOT NULL DEFAULT 0,
      processblock_count INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (id, sensor_id, segment_id),
      UNIQUE (sensor_id, process_id, segment_id)
    ) PARTITION BY RANGE (segment_id);
    CREATE INDEX segments_by_process ON segments (process_id, segment_id);
    CREATE INDEX segments_by_last_update ON segments USING brin (last_update_ms);
    CREATE INDEX segments_by_last_server_update ON segments USING brin (last_server_update_ms);

    -- A segment's events, one chunk per commit that brought some (event-codec.ts text, deflated).
    CREATE TABLE event_chunks (
      sensor_id BIGINT NOT NULL,
      segment_id BIGINT NOT NULL,
      segment_row BIGINT NOT NULL,
      chunk INTEGER NOT NULL,
      event_count INTEGER NOT NULL,
      data BYTEA NOT NULL,
      PRIMARY KEY (segment_row, chunk, sensor_id, segment_id)
    ) PARTITION BY RANGE (segment_id);
    ALTER TABLE event_chunks ALTER COLUMN data SET STORAGE EXTERNAL;

    -- The search terms a chunk added to its segment, as 'field:value' strings.
    CREATE TABLE segment_terms (
      sensor_id BIGINT NOT NULL,
      segment_id BIGINT NOT NULL,
      segment_row BIGINT NOT NULL,
      chunk INTEGER NOT NULL,
      terms TEXT[] NOT NULL,
      PRIMARY KEY (segment_row, chunk, sensor_id, segment_id)
    ) PARTITION BY RANGE (segment_id);
    CREATE INDEX segment_terms_by_term ON segment_terms USING gin (terms);

    -- Every (field, value) ever posted, for wildcard and range searches over one field's values.
    CREATE TABLE event_terms (
      field TEXT NOT NULL,
      value TEXT COLLATE "C" NOT NULL,
      PRIMARY KEY (field, value)
    );
    CREATE INDEX event_terms_by_trigram ON event_terms USING gin (value gin_trgm_ops);

    -- Segments (search documents) per process and per host, added by the writer once per commit.
    CREATE TABLE process_segment_counts (
      sensor_id BIGINT NOT NULL,
      process_row BIGINT NOT NULL,
      segments INTEGER NOT NULL,
      PRIMARY KEY (sensor_id, process_row)
    );
    CREATE TABLE host_segment_counts (
      sensor_id BIGINT NOT NULL,
      group_id BIGINT NOT NULL,
      hostname TEXT NOT NULL,
      host_type TEXT NOT NULL,
      os_type TEXT NOT NULL,
      segments INTEGER NOT NULL,
      PRIMARY KEY (sensor_id, group_id, hostname, host_type, os_type)
    );

    -- The API's storage partitions (reference admin §5): each names the PostgreSQL partitions
    -- segments_p<id>, event_chunks_p<id> and segment_terms_p<id>, which hold the segments whose
    -- segment_id is at least first_segment_id and below the next partition's. States as in
    -- SQLite (ADR 0009). Sizes are read from the catalog, so no commit updates a shared row.
    CREATE TABLE event_partitions (
      id INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      first_segment_id BIGINT NOT NULL,
      start_ms BIGINT NOT NULL,
      end_ms BIGINT,
      state TEXT NOT NULL CHECK (state IN ('hot', 'warm', 'cold', 'deleting', 'deleted')),
      user_mounted INTEGER NOT NULL DEFAULT 0
    );
    CREATE UNIQUE INDEX event_partitions_by_name ON event_partitions (name) WHERE state <> 'deleted';
    INSERT INTO event_partitions (id, name, first_segment_id, start_ms, state) VALUES (1, 'writer', 0, (extract(epoch FROM now()) * 1000)::bigint, 'hot');
    CREATE TABLE segments_p1 PARTITION OF segments FOR VALUES FROM (MINVALUE) TO (MAXVALUE);
    CREATE TABLE event_chunks_p1 PARTITION OF event_chunks FOR VALUES FROM (MINVALUE) TO (MAXVALUE);
    CREATE TABLE segment_terms_p1 PARTITION OF segment_terms FOR VALUES FROM (MINVALUE) TO (MAXVALUE);

    -- generation: bumped whenever segments stop or start counting, for readers of derived counts.
    CREATE TABLE event_storage (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      generation BIGINT NOT NULL
    );
    INSERT INTO event_storage (id, generation) VALUES (1, 0);
  `,
};
