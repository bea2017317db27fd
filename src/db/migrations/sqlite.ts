/**
 * The embedded store's schema, as an ordered list of migrations. Append new steps; never change
 * a released one (data directories created by it must keep opening).
 */
import type { Migration } from './types.js';

export const sqliteMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'users, teams, sites and sensor groups',
    sql: `
      CREATE TABLE sites (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL UNIQUE
      );
      INSERT INTO sites (id, name) VALUES (1, 'Default Site');

      -- Group fields beyond name and site live in settings (JSON), read back over the defaults.
      CREATE TABLE sensor_groups (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL UNIQUE,
        site_id INTEGER NOT NULL REFERENCES sites (id),
        settings TEXT NOT NULL DEFAULT '{}'
      );
      INSERT INTO sensor_groups (id, name, site_id) VALUES (1, 'Default Group', 1);

      CREATE TABLE teams (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL UNIQUE
      );

      -- No row for a (team, group) pair means "No Access".
      CREATE TABLE team_group_access (
        team_id INTEGER NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
        group_id INTEGER NOT NULL REFERENCES sensor_groups (id) ON DELETE CASCADE,
        access_category TEXT NOT NULL CHECK (access_category IN ('No Access', 'Viewer', 'Administrator')),
        PRIMARY KEY (team_id, group_id)
      );
      CREATE INDEX team_group_access_by_group ON team_group_access (group_id);

      -- API tokens are never stored: token_hash is SHA-256 of the token, which is derived from
      -- token_salt and the key file in the data dir (see docs/adr/0002-api-tokens.md).
      CREATE TABLE users (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        username TEXT NOT NULL UNIQUE,
        first_name TEXT NOT NULL DEFAULT '',
        last_name TEXT NOT NULL DEFAULT '',
        email TEXT NOT NULL DEFAULT '',
        global_admin INTEGER NOT NULL DEFAULT 0,
        password_hash TEXT,
        token_salt TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL
      );

      CREATE TABLE user_teams (
        user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        team_id INTEGER NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
        PRIMARY KEY (user_id, team_id)
      );
      CREATE INDEX user_teams_by_team ON user_teams (team_id);
    `,
  },
  {
    version: 2,
    name: 'sensors, ingestion, processes, segments, events and binaries',
    sql: `
      -- One install code per group, the secret a sensor presents to register into that group.
      CREATE TABLE sensor_install_codes (
        group_id INTEGER PRIMARY KEY REFERENCES sensor_groups (id) ON DELETE CASCADE,
        code TEXT NOT NULL UNIQUE
      );

      -- Times are epoch milliseconds: *_ms on the server's clock unless the name says sensor.
      CREATE TABLE sensors (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        group_id INTEGER NOT NULL REFERENCES sensor_groups (id),
        secret_hash TEXT NOT NULL,
        os_type TEXT NOT NULL,
        host_type TEXT NOT NULL,
        computer_name TEXT NOT NULL,
        computer_dns_name TEXT NOT NULL DEFAULT '',
        computer_sid TEXT NOT NULL DEFAULT '',
        os_environment_display_string TEXT NOT NULL DEFAULT '',
        build_version_string TEXT NOT NULL,
        build_id INTEGER NOT NULL DEFAULT 0,
        boot_id TEXT NOT NULL DEFAULT '0',
        network_adapters TEXT NOT NULL DEFAULT '',
        physical_memory_size INTEGER NOT NULL DEFAULT 0,
        systemvolume_total_size INTEGER NOT NULL DEFAULT 0,
        systemvolume_free_size INTEGER NOT NULL DEFAULT 0,
        uptime INTEGER NOT NULL DEFAULT 0,
        sensor_uptime INTEGER NOT NULL DEFAULT 0,
        clock_delta_ms INTEGER NOT NULL DEFAULT 0,
        health_status INTEGER NOT NULL DEFAULT 100,
        health_message TEXT NOT NULL DEFAULT 'Healthy',
        is_isolating INTEGER NOT NULL DEFAULT 0,
        network_isolation_enabled INTEGER NOT NULL DEFAULT 0,
        restart_queued INTEGER NOT NULL DEFAULT 0,
        uninstall INTEGER NOT NULL DEFAULT 0,
        notes TEXT,
        registration_ms INTEGER NOT NULL,
        last_checkin_ms INTEGER,
        next_checkin_ms INTEGER,
        last_sequence INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX sensors_by_group ON sensors (group_id);
      CREATE INDEX sensors_by_name ON sensors (computer_name);

      -- Instructions wait here until the sensor acknowledges them at a check-in.
      CREATE TABLE sensor_instructions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        sensor_id INTEGER NOT NULL REFERENCES sensors (id) ON DELETE CASCADE,
        type TEXT NOT NULL,
        payload TEXT,
        created_ms INTEGER NOT NULL,
        delivered_ms INTEGER,
        completed_ms INTEGER,
        result TEXT
      );
      CREATE INDEX sensor_instructions_pending ON sensor_instructions (sensor_id, id) WHERE completed_ms IS NULL;

      -- Named counts per sensor: accepted, duplicate and rejected batches and events, by reason.
      CREATE TABLE ingest_counters (
        sensor_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        value INTEGER NOT NULL,
        PRIMARY KEY (sensor_id, name)
      ) WITHOUT ROWID;

      -- One row per process, identified as Carbon Black does by sensor, pid and start (sensor clock).
      CREATE TABLE processes (
        id INTEGER PRIMARY KEY,
        sensor_id INTEGER NOT NULL,
        pid INTEGER NOT NULL,
        start_ms INTEGER NOT NULL,
        group_id INTEGER NOT NULL,
        hostname TEXT NOT NULL,
        host_type TEXT NOT NULL,
        os_type TEXT NOT NULL,
        path TEXT NOT NULL DEFAULT '',
        process_name TEXT NOT NULL DEFAULT '',
        cmdline TEXT NOT NULL DEFAULT '',
        username TEXT NOT NULL DEFAULT '',
        uid TEXT NOT NULL DEFAULT '',
        md5 TEXT NOT NULL DEFAULT '',
        sha256 TEXT NOT NULL DEFAULT '',
        parent_pid INTEGER NOT NULL DEFAULT -1,
        parent_start_ms INTEGER,
        parent_name TEXT NOT NULL DEFAULT '',
        parent_md5 TEXT NOT NULL DEFAULT '',
        end_ms INTEGER,
        UNIQUE (sensor_id, pid, start_ms)
      );
      CREATE INDEX processes_by_parent ON processes (sensor_id, parent_pid, parent_start_ms);
      CREATE INDEX processes_by_name ON processes (process_name);
      CREATE INDEX processes_by_md5 ON processes (md5);
      CREATE INDEX processes_by_hostname ON processes (hostname);

      -- A process's events are split into segments: a new one opens when the current one holds
      -- 10,000 events or its time window closes. segment_id is the server time it opened (ms).
      CREATE TABLE segments (
        id INTEGER PRIMARY KEY,
        process_id INTEGER NOT NULL REFERENCES processes (id),
        segment_id INTEGER NOT NULL,
        first_event_ms INTEGER NOT NULL,
        last_update_ms INTEGER NOT NULL,
        last_server_update_ms INTEGER NOT NULL,
        event_count INTEGER NOT NULL DEFAULT 0,
        filemod_count INTEGER NOT NULL DEFAULT 0,
        regmod_count INTEGER NOT NULL DEFAULT 0,
        netconn_count INTEGER NOT NULL DEFAULT 0,
        modload_count INTEGER NOT NULL DEFAULT 0,
        childproc_count INTEGER NOT NULL DEFAULT 0,
        crossproc_count INTEGER NOT NULL DEFAULT 0,
        processblock_count INTEGER NOT NULL DEFAULT 0,
        UNIQUE (process_id, segment_id)
      );
      CREATE INDEX segments_by_last_update ON segments (last_update_ms);
      CREATE INDEX segments_by_last_server_update ON segments (last_server_update_ms);

      -- The events of a segment, one chunk per ingest batch, encoded by src/ingest/event-codec.ts.
      -- A rowid table: chunks are appended at the end of its B-tree, and their (large) data stays
      -- out of the index that finds a segment's chunks.
      CREATE TABLE segment_events (
        id INTEGER PRIMARY KEY,
        segment_row INTEGER NOT NULL,
        chunk INTEGER NOT NULL,
        event_count INTEGER NOT NULL,
        data BLOB NOT NULL
      );
      CREATE UNIQUE INDEX segment_events_by_segment ON segment_events (segment_row, chunk);

      -- Event values a search can ask for (e.g. domain:example.com), once per segment that has them.
      CREATE TABLE event_terms (
        term TEXT NOT NULL,
        segment_row INTEGER NOT NULL,
        PRIMARY KEY (term, segment_row)
      ) WITHOUT ROWID;

      -- Binaries by MD5; the content lives content-addressed under <data dir>/binaries.
      CREATE TABLE binaries (
        md5 TEXT PRIMARY KEY,
        sha256 TEXT NOT NULL DEFAULT '',
        size INTEGER NOT NULL,
        stored_size INTEGER NOT NULL DEFAULT 0,
        metadata TEXT NOT NULL,
        first_seen_ms INTEGER NOT NULL,
        last_seen_ms INTEGER NOT NULL
      );
      CREATE TABLE binary_observations (
        md5 TEXT NOT NULL REFERENCES binaries (md5),
        sensor_id INTEGER NOT NULL,
        observed_filename TEXT NOT NULL,
        last_seen_ms INTEGER NOT NULL,
        PRIMARY KEY (md5, sensor_id, observed_filename)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 3,
    name: 'ingress filters',
    sql: `
      -- Every writable field lives in settings (JSON), read back over the defaults. id is the
      -- client's (honoured on create) or a generated uuid; seq keeps the order of creation. The
      -- user ids are an audit trail, kept when the user is deleted.
      CREATE TABLE ingress_filters (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        settings TEXT NOT NULL,
        created_at TEXT NOT NULL,
        created_by INTEGER NOT NULL,
        modified_at TEXT NOT NULL,
        modified_by INTEGER NOT NULL
      );
    `,
  },
  {
    version: 4,
    name: 'event term dictionary and integer postings',
    sql: `
      -- Event values (field, value) once each; the postings refer to them by id. Wildcard and
      -- sub-path searches match against the values of one field here, then read the postings.
      DROP TABLE event_terms;
      CREATE TABLE event_terms (
        id INTEGER PRIMARY KEY,
        field TEXT NOT NULL,
        value TEXT NOT NULL,
        UNIQUE (field, value)
      );
      -- Which segments hold an event with the term: small integer keys, so that the writer's
      -- inserts stay cheap and the B-tree stays dense.
      CREATE TABLE event_postings (
        term_id INTEGER NOT NULL,
        segment_row INTEGER NOT NULL,
        PRIMARY KEY (term_id, segment_row)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 5,
    name: 'sensor requests from analysts and the ip filter',
    sql: `
      -- event_log_flush_ms: the flush deadline an analyst set (null: none). uninstalled_ms: when the
      -- sensor confirmed an uninstall instruction.
      ALTER TABLE sensors ADD COLUMN event_log_flush_ms INTEGER;
      ALTER TABLE sensors ADD COLUMN uninstalled_ms INTEGER;

      -- The addresses of network_adapters alone, as "|10.1.2.3|10.9.9.9|", so that the ip filter
      -- matches addresses and never a MAC. Filled from network_adapters ("ip,mac|" repeated) for
      -- sensors registered before this column existed.
      ALTER TABLE sensors ADD COLUMN ip_addresses TEXT NOT NULL DEFAULT '';
      WITH RECURSIVE split (id, rest, ips) AS (
        SELECT id, network_adapters, '|' FROM sensors
        UNION ALL
        SELECT id, substr(rest, instr(rest, '|') + 1), ips || substr(rest, 1, instr(rest, ',') - 1) || '|'
        FROM split WHERE instr(rest, '|') > 0
      )
      UPDATE sensors SET ip_addresses = (
        SELECT CASE WHEN ips = '|' THEN '' ELSE ips END FROM split WHERE split.id = sensors.id AND instr(split.rest, '|') = 0
      );
    `,
  },
  {
    version: 6,
    name: 'hash bans and their delivery to sensors',
    sql: `
      -- One row per banned md5 (lowercase), never deleted: unbanning disables it, as in Carbon Black.
      -- list_version is the ban-list version at which its enabled state last changed, so the
      -- bans changed since a sensor's version are the ones it must hear about.
      CREATE TABLE bans (
        md5 TEXT PRIMARY KEY,
        text TEXT NOT NULL,
        enabled INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        username TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        list_version INTEGER NOT NULL,
        block_count INTEGER NOT NULL DEFAULT 0,
        last_block_ms INTEGER,
        last_block_sensor_id INTEGER,
        last_block_hostname TEXT
      );
      CREATE INDEX bans_by_list_version ON bans (list_version);

      -- Every change of a ban: who, when, and the text and state it left.
      CREATE TABLE ban_audit (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        md5 TEXT NOT NULL REFERENCES bans (md5),
        user_id INTEGER NOT NULL,
        username TEXT NOT NULL,
        at_ms INTEGER NOT NULL,
        text TEXT NOT NULL,
        enabled INTEGER NOT NULL
      );
      CREATE INDEX ban_audit_by_md5 ON ban_audit (md5, id);

      -- The ban list's current version: one row, bumped (and so locked) by every change of the
      -- enabled set, which makes versions commit in order.
      CREATE TABLE ban_list_version (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        version INTEGER NOT NULL
      );
      INSERT INTO ban_list_version (id, version) VALUES (1, 0);

      -- Which ban-list version each sensor has acknowledged (0: it holds no bans), and the
      -- ban_list instruction it has not yet acknowledged, if any.
      CREATE TABLE sensor_ban_lists (
        sensor_id INTEGER PRIMARY KEY REFERENCES sensors (id) ON DELETE CASCADE,
        acked_version INTEGER NOT NULL DEFAULT 0,
        pending_instruction_id INTEGER,
        pending_version INTEGER
      );
    `,
  },
  {
    version: 7,
    name: 'process and binary search: segments per process and search indexes',
    sql: `
      -- How many segments (search documents) each process has, kept by a trigger on the writer's
      -- own segment inserts: a search on process fields alone then counts and facets its matches
      -- per process (a few hundred thousand rows) instead of per segment (millions). One upsert
      -- into this narrow table per new segment, not per event.
      CREATE TABLE process_segment_counts (
        process_row INTEGER PRIMARY KEY,
        segments INTEGER NOT NULL
      );
      INSERT INTO process_segment_counts (process_row, segments) SELECT process_id, count(*) FROM segments GROUP BY process_id;
      -- On one line: migrate.ts splits scripts at a semicolon that ends a line.
      CREATE TRIGGER segments_counted_per_process AFTER INSERT ON segments BEGIN INSERT INTO process_segment_counts (process_row, segments) VALUES (NEW.process_id, 1) ON CONFLICT (process_row) DO UPDATE SET segments = segments + 1; END;

      -- The same count per host (the sensor, its group at execution time, host name and types as
      -- the process recorded them, which never change afterwards): a search scoped to hosts alone
      -- (hostname:web*, group:servers, os_type:windows, or an empty query for a user who sees some
      -- groups only) counts its documents from these few rows.
      CREATE TABLE host_segment_counts (
        sensor_id INTEGER NOT NULL,
        group_id INTEGER NOT NULL,
        hostname TEXT NOT NULL,
        host_type TEXT NOT NULL,
        os_type TEXT NOT NULL,
        segments INTEGER NOT NULL,
        PRIMARY KEY (sensor_id, group_id, hostname, host_type, os_type)
      ) WITHOUT ROWID;
      INSERT INTO host_segment_counts (sensor_id, group_id, hostname, host_type, os_type, segments)
        SELECT p.sensor_id, p.group_id, p.hostname, p.host_type, p.os_type, count(*) FROM segments s JOIN processes p ON p.id = s.process_id GROUP BY 1, 2, 3, 4, 5;
      CREATE TRIGGER segments_counted_per_host AFTER INSERT ON segments BEGIN INSERT INTO host_segment_counts (sensor_id, group_id, hostname, host_type, os_type, segments) SELECT sensor_id, group_id, hostname, host_type, os_type, 1 FROM processes WHERE id = NEW.process_id ON CONFLICT (sensor_id, group_id, hostname, host_type, os_type) DO UPDATE SET segments = segments + 1; END;

      -- Process fields searched, sorted or faceted on: one index entry per process each.
      CREATE INDEX processes_by_username ON processes (username);
      CREATE INDEX processes_by_parent_name ON processes (parent_name);
      CREATE INDEX processes_by_parent_md5 ON processes (parent_md5);
      CREATE INDEX processes_by_start ON processes (start_ms);
      CREATE INDEX processes_by_group ON processes (group_id);

      -- A process's segments by their last event: a time-restricted search on process fields
      -- (process_name:x with cb.min_last_update) reads only the matching processes' segments in
      -- the window, from the index alone.
      CREATE INDEX segments_by_process_last_update ON segments (process_id, last_update_ms);

      -- Binary search's default order (server_added_timestamp desc).
      CREATE INDEX binaries_by_first_seen ON binaries (first_seen_ms);
    `,
  },
];
