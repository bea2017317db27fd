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
];
