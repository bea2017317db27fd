/**
 * The embedded store's schema, as an ordered list of migrations. Append new steps; never change
 * a released one (data directories created by it must keep opening).
 */
import { TAG_SENSORS_MIGRATION } from './sqlite/021-tag-sensors.js';
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
    name: 'live response sessions, commands and files',
    sql: `
      -- One row per session (reference admin §7). status: pending (waiting for the sensor to
      -- attach), active, close, timeout or error. attach holds what the sensor said when it
      -- attached (JSON: supported_commands, drives, current_working_directory). Idle time counts
      -- from last_activity_ms (API use); sensor_seen_ms is the sensor's latest check-in while the
      -- session was open. instruction_id: the live_response_session instruction that opens it.
      CREATE TABLE live_response_sessions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        sensor_id INTEGER NOT NULL REFERENCES sensors (id) ON DELETE CASCADE,
        status TEXT NOT NULL,
        user_id INTEGER NOT NULL,
        username TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        attached_ms INTEGER,
        last_activity_ms INTEGER NOT NULL,
        sensor_seen_ms INTEGER,
        ended_ms INTEGER,
        instruction_id INTEGER,
        attach TEXT
      );
      CREATE INDEX live_response_sessions_open ON live_response_sessions (sensor_id) WHERE status IN ('pending', 'active');

      -- Commands of a session, each sent as one live_response instruction. request: the object
      -- and options as posted (JSON); outcome: result code, type, description and output (JSON).
      CREATE TABLE live_response_commands (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id INTEGER NOT NULL REFERENCES live_response_sessions (id) ON DELETE CASCADE,
        sensor_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        request TEXT NOT NULL,
        status TEXT NOT NULL,
        username TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        completed_ms INTEGER,
        instruction_id INTEGER,
        file_id INTEGER,
        outcome TEXT
      );
      CREATE INDEX live_response_commands_by_session ON live_response_commands (session_id, id);
      CREATE INDEX live_response_commands_by_instruction ON live_response_commands (sensor_id, instruction_id);
      CREATE INDEX live_response_commands_pending ON live_response_commands (session_id) WHERE status = 'pending';

      -- Files of a session: fetched from the endpoint (get file) or uploaded by an analyst (put
      -- file). The content lives on disk; size is null until it has arrived.
      CREATE TABLE live_response_files (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id INTEGER NOT NULL REFERENCES live_response_sessions (id) ON DELETE CASCADE,
        file_name TEXT NOT NULL,
        size INTEGER,
        created_ms INTEGER NOT NULL
      );
      CREATE INDEX live_response_files_by_session ON live_response_files (session_id, id);
    `,
  },
  {
    version: 8,
    name: 'watchlists, feeds, threat reports, their hits on documents, and alerts',
    sql: `
      -- Saved searches (reference admin §1). search_query is kept exactly as the client sent it.
      -- search_ms is search_timestamp (the last run); match_cursor is where the matcher resumes
      -- (its own format; null: from the beginning of the data).
      CREATE TABLE watchlists (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        description TEXT,
        search_query TEXT NOT NULL,
        index_type TEXT NOT NULL CHECK (index_type IN ('events', 'modules')),
        enabled INTEGER NOT NULL,
        readonly INTEGER NOT NULL,
        group_id INTEGER NOT NULL,
        alliance_id INTEGER,
        from_alliance INTEGER NOT NULL,
        date_added_ms INTEGER NOT NULL,
        last_hit_ms INTEGER,
        last_hit_count INTEGER NOT NULL DEFAULT 0,
        total_hits INTEGER NOT NULL DEFAULT 0,
        total_tags INTEGER NOT NULL DEFAULT 0,
        search_ms INTEGER,
        match_cursor TEXT
      );

      -- Feeds (reference admin §4.2); the feedinfo fields are refreshed at every synchronization.
      CREATE TABLE feeds (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL COLLATE NOCASE UNIQUE,
        display_name TEXT NOT NULL,
        feed_url TEXT NOT NULL,
        summary TEXT NOT NULL,
        tech_data TEXT NOT NULL,
        provider_url TEXT NOT NULL,
        icon TEXT NOT NULL,
        icon_small TEXT NOT NULL,
        category TEXT,
        category_tokens TEXT NOT NULL,
        provider_rating REAL,
        local_rating REAL,
        enabled INTEGER NOT NULL,
        use_proxy INTEGER,
        validate_server_cert INTEGER,
        username TEXT,
        password TEXT,
        ssl_client_crt TEXT,
        ssl_client_key TEXT,
        manually_added INTEGER NOT NULL,
        display_order INTEGER,
        created_ms INTEGER NOT NULL,
        synced_ms INTEGER
      );

      -- Notification actions of a watchlist or a feed (reference admin §1.4): 0 email, 1 syslog,
      -- 2 http post, 3 alert. One action of each type per owner, as the console's checkboxes.
      CREATE TABLE detection_actions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        watchlist_id INTEGER REFERENCES watchlists (id) ON DELETE CASCADE,
        feed_id INTEGER REFERENCES feeds (id) ON DELETE CASCADE,
        action_type INTEGER NOT NULL CHECK (action_type BETWEEN 0 AND 3),
        action_data TEXT,
        CHECK ((watchlist_id IS NULL) <> (feed_id IS NULL))
      );
      CREATE UNIQUE INDEX detection_actions_by_watchlist ON detection_actions (watchlist_id, action_type) WHERE watchlist_id IS NOT NULL;
      CREATE UNIQUE INDEX detection_actions_by_feed ON detection_actions (feed_id, action_type) WHERE feed_id IS NOT NULL;

      -- A feed's reports. A report a full synchronization no longer finds is marked deleted, not
      -- removed, so alerts keep pointing at it. *_tokens hold the text fields' search tokens
      -- (JSON arrays, src/query/values/text.ts).
      CREATE TABLE threat_reports (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        feed_id INTEGER NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
        report_id TEXT NOT NULL,
        title TEXT NOT NULL,
        description TEXT NOT NULL,
        link TEXT NOT NULL,
        score INTEGER NOT NULL,
        timestamp_s INTEGER NOT NULL,
        tags TEXT NOT NULL,
        iocs TEXT NOT NULL,
        title_tokens TEXT NOT NULL,
        description_tokens TEXT NOT NULL,
        tags_tokens TEXT NOT NULL,
        is_ignored INTEGER NOT NULL DEFAULT 0,
        is_deleted INTEGER NOT NULL DEFAULT 0,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL,
        match_cursor TEXT,
        UNIQUE (feed_id, report_id)
      );

      -- The value IOCs of each report, looked up by value when events arrive. Values are lower
      -- case (IPv6 in RFC 5952 form); addresses also as fixed-width hex (8 digits for IPv4, 32
      -- for IPv6), whose text order is address order, for range searches.
      CREATE TABLE report_iocs (
        ioc_type TEXT NOT NULL,
        value TEXT NOT NULL,
        report_row INTEGER NOT NULL REFERENCES threat_reports (id) ON DELETE CASCADE,
        address_hex TEXT,
        PRIMARY KEY (ioc_type, value, report_row)
      ) WITHOUT ROWID;
      CREATE INDEX report_iocs_by_report ON report_iocs (report_row);

      -- Documents tagged by watchlists and feed reports: process segments (segments.id) and
      -- binaries (md5). hit_ms is when the first hit tagged the document.
      CREATE TABLE watchlist_process_hits (
        watchlist_id INTEGER NOT NULL REFERENCES watchlists (id) ON DELETE CASCADE,
        segment_row INTEGER NOT NULL,
        hit_ms INTEGER NOT NULL,
        PRIMARY KEY (watchlist_id, segment_row)
      ) WITHOUT ROWID;
      CREATE INDEX watchlist_process_hits_by_segment ON watchlist_process_hits (segment_row);
      CREATE TABLE watchlist_binary_hits (
        watchlist_id INTEGER NOT NULL REFERENCES watchlists (id) ON DELETE CASCADE,
        md5 TEXT NOT NULL,
        hit_ms INTEGER NOT NULL,
        PRIMARY KEY (watchlist_id, md5)
      ) WITHOUT ROWID;
      CREATE INDEX watchlist_binary_hits_by_md5 ON watchlist_binary_hits (md5);
      CREATE TABLE feed_process_hits (
        report_row INTEGER NOT NULL REFERENCES threat_reports (id) ON DELETE CASCADE,
        segment_row INTEGER NOT NULL,
        hit_ms INTEGER NOT NULL,
        PRIMARY KEY (report_row, segment_row)
      ) WITHOUT ROWID;
      CREATE INDEX feed_process_hits_by_segment ON feed_process_hits (segment_row);
      CREATE TABLE feed_binary_hits (
        report_row INTEGER NOT NULL REFERENCES threat_reports (id) ON DELETE CASCADE,
        md5 TEXT NOT NULL,
        hit_ms INTEGER NOT NULL,
        PRIMARY KEY (report_row, md5)
      ) WITHOUT ROWID;
      CREATE INDEX feed_binary_hits_by_md5 ON feed_binary_hits (md5);
      -- The sensors whose processes each watchlist and report has tagged: an alert's total_hosts.
      CREATE TABLE watchlist_hosts (
        watchlist_id INTEGER NOT NULL REFERENCES watchlists (id) ON DELETE CASCADE,
        sensor_id INTEGER NOT NULL,
        PRIMARY KEY (watchlist_id, sensor_id)
      ) WITHOUT ROWID;
      CREATE TABLE report_hosts (
        report_row INTEGER NOT NULL REFERENCES threat_reports (id) ON DELETE CASCADE,
        sensor_id INTEGER NOT NULL,
        PRIMARY KEY (report_row, sensor_id)
      ) WITHOUT ROWID;

      -- Alerts (reference admin §3.3) with the process, sensor and binary fields of the document
      -- at the time of the hit, so that alert search filters one table. Keyword columns hold
      -- the value as shown; process_path_key is the path in the query language's normal form.
      -- report_row links a feed alert to its report (is_ignored travels both ways). A row never
      -- changes once written: triage lives in alert_triage.
      CREATE TABLE alerts (
        id INTEGER PRIMARY KEY,
        unique_id TEXT NOT NULL UNIQUE,
        alert_type TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        watchlist_id TEXT NOT NULL,
        watchlist_name TEXT NOT NULL,
        feed_id INTEGER NOT NULL,
        feed_name TEXT NOT NULL,
        report_row INTEGER REFERENCES threat_reports (id) ON DELETE SET NULL,
        report_score INTEGER NOT NULL,
        feed_rating REAL NOT NULL,
        sensor_criticality REAL NOT NULL,
        ioc_confidence REAL NOT NULL,
        alert_severity REAL NOT NULL,
        ioc_type TEXT NOT NULL,
        ioc_value TEXT NOT NULL,
        ioc_attr TEXT NOT NULL,
        description TEXT,
        link TEXT,
        segment_row INTEGER,
        process_id TEXT,
        segment_id INTEGER,
        process_name TEXT,
        process_path TEXT,
        process_path_key TEXT,
        username TEXT,
        md5 TEXT,
        sha256 TEXT,
        observed_filename TEXT,
        hostname TEXT,
        group_id INTEGER,
        group_name TEXT,
        sensor_id INTEGER,
        os_type TEXT,
        comms_ip TEXT,
        interface_ip TEXT,
        modload_count INTEGER,
        filemod_count INTEGER,
        regmod_count INTEGER,
        netconn_count INTEGER,
        childproc_count INTEGER,
        crossproc_count INTEGER,
        total_hosts INTEGER NOT NULL
      );
      CREATE INDEX alerts_by_created ON alerts (created_ms);
      CREATE INDEX alerts_by_report ON alerts (report_row) WHERE report_row IS NOT NULL;
      -- What triage changes, one narrow row per alert: a bulk change over a million alerts
      -- rewrites these rows, not the alerts'.
      CREATE TABLE alert_triage (
        alert_id INTEGER PRIMARY KEY REFERENCES alerts (id) ON DELETE CASCADE,
        status TEXT NOT NULL,
        resolved_ms INTEGER,
        assigned_to TEXT
      );
    `,
  },
  {
    version: 9,
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
  {
    version: 10,
    name: 'event storage partitions',
    sql: `
      -- Partitions of the event store (reference admin §5, docs/adr/0009-partitions.md). A partition
      -- is a contiguous range of segment rows: from its first_row up to the next partition's
      -- first_row (the hot one, 'writer', has no end). Segment rows only grow, so a rollover just
      -- records the next row as the new hot partition's first. state: hot (takes new events),
      -- warm (mounted), cold (kept but not searched), deleting (hidden, its rows being removed),
      -- deleted (gone; the row stays so that the ranges of the others stay put). event_bytes and
      -- segment_count: the event chunk bytes and segments written into it, counted by the writer
      -- once per commit.
      CREATE TABLE event_partitions (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        first_row INTEGER NOT NULL UNIQUE,
        start_ms INTEGER NOT NULL,
        end_ms INTEGER,
        state TEXT NOT NULL CHECK (state IN ('hot', 'warm', 'cold', 'deleting', 'deleted')),
        user_mounted INTEGER NOT NULL DEFAULT 0,
        event_bytes INTEGER NOT NULL DEFAULT 0,
        segment_count INTEGER NOT NULL DEFAULT 0
      );
      CREATE UNIQUE INDEX event_partitions_by_name ON event_partitions (name) WHERE state <> 'deleted';
      -- Data written before partitions existed becomes the hot partition.
      INSERT INTO event_partitions (name, first_row, start_ms, state, event_bytes, segment_count) VALUES (
        'writer', 1, coalesce((SELECT min(segment_id) FROM segments), CAST(unixepoch('subsec') * 1000 AS INTEGER)), 'hot',
        (SELECT coalesce(sum(length(CAST(data AS BLOB))), 0) FROM segment_events), (SELECT count(*) FROM segments)
      );

      -- generation: bumped whenever segments stop or start counting (unmount, mount, deletion), so
      -- that readers keeping derived counts (the facet tally) know to rebuild them.
      -- process_row_floor: process rows at or below it were handed out once; a deletion may remove
      -- the newest processes, and their row ids must not be given to new processes.
      CREATE TABLE event_storage (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        generation INTEGER NOT NULL,
        process_row_floor INTEGER NOT NULL
      );
      INSERT INTO event_storage (id, generation, process_row_floor) VALUES (1, 0, 0);
    `,
  },
  {
    version: 11,
    name: 'command-line words posted per process',
    sql: `
      -- Command-line words come only from a process's start, so they belong to the process, not to
      -- whichever segment the start arrived in: a cmdline search then lists its processes from the
      -- postings alone instead of looking each posted segment up for its process.
      CREATE TABLE process_postings (
        term_id INTEGER NOT NULL,
        process_row INTEGER NOT NULL,
        PRIMARY KEY (term_id, process_row)
      ) WITHOUT ROWID;
      INSERT OR IGNORE INTO process_postings (term_id, process_row)
        SELECT e.term_id, s.process_id FROM event_terms t CROSS JOIN event_postings e ON e.term_id = t.id CROSS JOIN segments s ON s.id = e.segment_row
        WHERE t.field = 'cmdline' ORDER BY 1, 2;
      DELETE FROM event_postings WHERE term_id IN (SELECT id FROM event_terms WHERE field = 'cmdline');
    `,
  },
  {
    version: 12,
    name: 'the event writer counts segments per process and per host itself',
    sql: `
      -- A trigger makes every segment insert a multi-row statement, which SQLite guards with a
      -- statement journal: a copy of every page the insert touches, spilled to a temporary file,
      -- half of what the writer wrote. The event writer (the only one to insert segments) now adds
      -- its new segments to process_segment_counts and host_segment_counts once per commit.
      DROP TRIGGER segments_counted_per_process;
      DROP TRIGGER segments_counted_per_host;
    `,
  },
  {
    version: 13,
    name: 'event chunks in files, one per partition',
    sql: `
      -- Event chunks are appended to a file per partition (events/partition-<file_id>.chunks beside
      -- the database, docs/adr/0011-chunk-files.md); a row here says where one chunk is. Chunks
      -- written before stay in segment_events, and readers take both in chunk order.
      CREATE TABLE segment_chunks (
        segment_row INTEGER NOT NULL,
        chunk INTEGER NOT NULL,
        event_count INTEGER NOT NULL,
        file_id INTEGER NOT NULL,
        byte_offset INTEGER NOT NULL,
        byte_length INTEGER NOT NULL,
        PRIMARY KEY (segment_row, chunk)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 14,
    name: 'secrets sealed under a key kept apart from the database',
    sql: `
      -- Install codes, feed passwords and feed client keys are sealed with AES-256-GCM under the
      -- secret key file (docs/adr/0015-secrets-at-rest.md). SQL cannot seal: the plain values stay
      -- where they are until the next start seals them and drops what remains of the plain ones
      -- (SqlInstallCodesStore.sealPlaintext, SqlFeedsStore.sealPlaintext).
      ALTER TABLE sensor_install_codes RENAME TO sensor_install_codes_plaintext;
      -- code_lookup: a keyed hash (HMAC) of the code, to find the group a sensor registers into.
      CREATE TABLE sensor_install_codes (
        group_id INTEGER PRIMARY KEY REFERENCES sensor_groups (id) ON DELETE CASCADE,
        code_lookup TEXT NOT NULL UNIQUE,
        code_sealed TEXT NOT NULL
      );
      -- 0: password and ssl_client_key are still plain text, written before this migration.
      ALTER TABLE feeds ADD COLUMN secrets_sealed INTEGER NOT NULL DEFAULT 0;
      -- A known value sealed under the key: a start with another key stops instead of misreading.
      CREATE TABLE secret_key_check (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        sealed TEXT NOT NULL
      );
    `,
  },
  {
    version: 15,
    name: 'data sharing per sensor group, and the server license record',
    sql: `
      -- Whom a group's data may be shared with and what (reference core §7.1, "datasharing"); one
      -- row per (who, what) pair, gone with its group.
      CREATE TABLE group_datasharing (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        group_id INTEGER NOT NULL REFERENCES sensor_groups (id) ON DELETE CASCADE,
        who TEXT NOT NULL,
        what TEXT NOT NULL,
        UNIQUE (group_id, who, what)
      );
      -- One row: this server's token, named in /api/license and its request block.
      CREATE TABLE server_license (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        server_token TEXT NOT NULL
      );
      INSERT INTO server_license (id, server_token) VALUES (1, lower(hex(randomblob(16))));
    `,
  },
  {
    version: 16,
    name: 'investigations, tagged events, site throttle rules and their delivery',
    sql: `
      -- Investigations (cbapi investigation.yaml); "Default Investigation" (1) always exists.
      -- created_by is the username, '' for the system's own.
      CREATE TABLE investigations (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        notes TEXT NOT NULL DEFAULT '',
        created_by TEXT NOT NULL DEFAULT '',
        started_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL
      );
      INSERT INTO investigations (id, name, started_ms, updated_ms) VALUES
        (1, 'Default Investigation', CAST(unixepoch('subsec') * 1000 AS INTEGER), CAST(unixepoch('subsec') * 1000 AS INTEGER));

      -- Events tagged into an investigation (cbapi tagged_event.yaml). process_guid is the tagged
      -- process's id ('' for a note that names none), group_id its sensor group when tagged (who
      -- may see the tag); start_ms the process start on the sensor's clock.
      CREATE TABLE tagged_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        investigation_id INTEGER NOT NULL REFERENCES investigations (id) ON DELETE CASCADE,
        process_guid TEXT NOT NULL DEFAULT '',
        segment_id INTEGER NOT NULL DEFAULT 0,
        pid INTEGER,
        group_id INTEGER,
        event_id INTEGER,
        event_type TEXT NOT NULL DEFAULT '',
        event_data TEXT NOT NULL DEFAULT '{}',
        start_ms INTEGER,
        tagged_ms INTEGER NOT NULL,
        tagged_by TEXT NOT NULL DEFAULT '',
        notes TEXT NOT NULL DEFAULT ''
      );
      CREATE INDEX tagged_events_by_investigation ON tagged_events (investigation_id);
      CREATE INDEX tagged_events_by_process ON tagged_events (process_guid) WHERE process_guid <> '';

      -- Site throttle rules (cbapi throttle.yaml): on day_of_week (0 Sunday .. 6 Saturday), from
      -- hour from_hour up to to_hour (0..24, the sensor's local time), the site's sensors send at
      -- most bytes_per_second. Sensors enforce them; sensor_throttle is the rule list (JSON) each
      -- sensor was last sent and the instruction that carries it.
      CREATE TABLE throttle_rules (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        site_id INTEGER NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
        day_of_week INTEGER NOT NULL,
        from_hour INTEGER NOT NULL,
        to_hour INTEGER NOT NULL,
        bytes_per_second REAL NOT NULL
      );
      CREATE INDEX throttle_rules_by_site ON throttle_rules (site_id);
      CREATE TABLE sensor_throttle (
        sensor_id INTEGER PRIMARY KEY,
        rules TEXT NOT NULL,
        instruction_id INTEGER NOT NULL
      );

      -- The dashboard counts recent watchlist hits by time.
      CREATE INDEX watchlist_process_hits_by_time ON watchlist_process_hits (hit_ms);
      CREATE INDEX watchlist_binary_hits_by_time ON watchlist_binary_hits (hit_ms);
    `,
  },
  {
    version: 17,
    name: 'Sysmon ingest: per-group ingest keys, the sensor each host became, imported batches',
    sql: `
      -- Keys shippers present to send Sysmon events into a group. Only a keyed hash of the key is
      -- kept (key_lookup, as install codes): it is shown once, when created.
      CREATE TABLE ingest_keys (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        group_id INTEGER NOT NULL REFERENCES sensor_groups (id) ON DELETE CASCADE,
        name TEXT NOT NULL DEFAULT '',
        key_lookup TEXT NOT NULL UNIQUE,
        created_by TEXT NOT NULL DEFAULT '',
        created_ms INTEGER NOT NULL,
        revoked_ms INTEGER
      );
      CREATE INDEX ingest_keys_by_group ON ingest_keys (group_id);

      -- What reports for a sensor: Vigil's own agent, or Sysmon through a shipper (no agent that
      -- could isolate, restart, uninstall or answer live response).
      ALTER TABLE sensors ADD COLUMN agent TEXT NOT NULL DEFAULT 'vigil';

      -- Each host that sent Sysmon events is a sensor of its group; host_name is the host's name
      -- without its domain, lowercased.
      CREATE TABLE sysmon_hosts (
        group_id INTEGER NOT NULL REFERENCES sensor_groups (id) ON DELETE CASCADE,
        host_name TEXT NOT NULL,
        sensor_id INTEGER NOT NULL UNIQUE REFERENCES sensors (id) ON DELETE CASCADE,
        PRIMARY KEY (group_id, host_name)
      );

      -- Batches of events already stored, by the digest their sender gave them, so that importing
      -- the same file again stores nothing twice.
      CREATE TABLE sysmon_batches (
        group_id INTEGER NOT NULL REFERENCES sensor_groups (id) ON DELETE CASCADE,
        digest TEXT NOT NULL,
        stored_ms INTEGER NOT NULL,
        PRIMARY KEY (group_id, digest)
      );
    `,
  },
  {
    version: 18,
    name: 'leases of the jobs that run once across servers, live-response file content in the database',
    sql: `
      -- A scheduled job (watchlist pass, feed sync, storage maintenance) runs on the server that
      -- holds its lease, until expires_ms; ran_ms is when its last run began, so that the servers
      -- run it once per period between them (src/jobs/, docs/adr/0022-jobs-across-servers.md).
      CREATE TABLE job_leases (
        name TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        expires_ms INTEGER NOT NULL,
        ran_ms INTEGER
      );

      -- Live-response file content in the database, in pieces, for servers that share it
      -- (live-response-content.sql.ts); the embedded server keeps it under the data dir.
      CREATE TABLE live_response_file_pieces (
        file_id INTEGER NOT NULL REFERENCES live_response_files (id) ON DELETE CASCADE,
        piece INTEGER NOT NULL,
        data BLOB NOT NULL,
        PRIMARY KEY (file_id, piece)
      );
    `,
  },
  {
    version: 19,
    name: 'console sessions',
    sql: `
      -- Console sessions (src/modules/sessions/): id_hash is SHA-256 of the cookie's session id,
      -- which is never stored; password_stamp ends the session when the user's password changes.
      CREATE TABLE user_sessions (
        id_hash TEXT PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        password_stamp TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        last_seen_ms INTEGER NOT NULL,
        expires_ms INTEGER NOT NULL
      );
      CREATE INDEX user_sessions_by_user ON user_sessions (user_id);
      CREATE INDEX user_sessions_by_expiry ON user_sessions (expires_ms);
    `,
  },
  {
    version: 20,
    name: 'notification outbox',
    sql: `
      -- Notifications of watchlist and feed hits waiting for, or done with, delivery: one row per
      -- notification and channel (email, syslog, http_post), written in the transaction that
      -- records the hit (src/modules/notifications/, docs/adr/0023-notification-outbox.md).
      -- notification_id is what receivers dedupe on. state: pending (never tried, or retrying),
      -- sent, failed (gave up; last_error says why).
      CREATE TABLE notification_outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        notification_id TEXT NOT NULL,
        channel TEXT NOT NULL,
        payload TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending',
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_ms INTEGER NOT NULL,
        last_attempt_ms INTEGER,
        last_error TEXT,
        created_ms INTEGER NOT NULL,
        sent_ms INTEGER,
        UNIQUE (notification_id, channel)
      );
      CREATE INDEX notification_outbox_due ON notification_outbox (state, next_attempt_ms);
      CREATE INDEX notification_outbox_by_channel ON notification_outbox (channel, state);
    `,
  },
  TAG_SENSORS_MIGRATION,
  {
    version: 22,
    name: 'event forwarder outputs and their cursors',
    sql: `
      -- Forwarder outputs (src/modules/forwarder/, docs/adr/0024-forwarder-cursors.md): where
      -- records go (kind and its settings as JSON), in which format, and which sources feed them.
      CREATE TABLE forwarder_outputs (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        format TEXT NOT NULL,
        settings TEXT NOT NULL,
        sources TEXT NOT NULL,
        enabled INTEGER NOT NULL,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL
      );
      -- Where each output stands in each source: position is the key of the last record it
      -- delivered, as JSON, so a restart resumes after it.
      CREATE TABLE forwarder_cursors (
        output_id INTEGER NOT NULL REFERENCES forwarder_outputs (id) ON DELETE CASCADE,
        source TEXT NOT NULL,
        position TEXT NOT NULL,
        forwarded INTEGER NOT NULL DEFAULT 0,
        last_success_ms INTEGER,
        last_error TEXT,
        last_error_ms INTEGER,
        PRIMARY KEY (output_id, source)
      );
      -- When the writer committed each chunk (server clock), the order the forwarder reads raw
      -- events in; chunks written before this migration have none and are not forwarded.
      ALTER TABLE segment_chunks ADD COLUMN written_ms INTEGER;
      CREATE INDEX segment_chunks_by_written ON segment_chunks (written_ms, segment_row, chunk) WHERE written_ms IS NOT NULL;
      CREATE INDEX feed_process_hits_by_time ON feed_process_hits (hit_ms);
    `,
  },
  {
    version: 23,
    name: 'sensor state changes for the event forwarder',
    sql: `
      -- Each change of a sensor's state as it happens (registered, back online, isolation
      -- requested or confirmed, uninstall requested or confirmed), in the order of its server
      -- time, which the forwarder reads after (docs/forwarder.md). Going offline is no write: the
      -- forwarder reads it from the sensor's last check-in, and a check-in that ends it keeps it here.
      CREATE TABLE sensor_state_changes (
        id INTEGER PRIMARY KEY,
        sensor_id INTEGER NOT NULL,
        changed_ms INTEGER NOT NULL,
        state TEXT NOT NULL
      );
      CREATE INDEX sensor_state_changes_by_time ON sensor_state_changes (changed_ms, sensor_id, state);
    `,
  },
  {
    version: 24,
    name: 'segments per event term',
    sql: `
      -- How many segments each term is posted under (its rows in event_postings), kept by the
      -- event writer with each commit and by the partition purge: a search for one term counts its
      -- matches from here instead of reading every posting (docs/adr/0038-search-counts.md).
      CREATE TABLE term_segment_counts (
        term_id INTEGER PRIMARY KEY,
        segments INTEGER NOT NULL
      );
      INSERT INTO term_segment_counts (term_id, segments) SELECT term_id, count(*) FROM event_postings GROUP BY term_id;
    `,
  },
  {
    version: 25,
    name: 'sensor upload sequences in a table of their own',
    sql: `
      -- Each sensor's last upload sequence, which the event writer sets with every commit, kept
      -- apart from the sensor row as on PostgreSQL (its migration 10 says why).
      CREATE TABLE sensor_sequences (
        sensor_id INTEGER PRIMARY KEY,
        last_sequence INTEGER NOT NULL
      );
      INSERT INTO sensor_sequences (sensor_id, last_sequence) SELECT id, last_sequence FROM sensors WHERE last_sequence <> 0;
      ALTER TABLE sensors DROP COLUMN last_sequence;
    `,
  },
];
