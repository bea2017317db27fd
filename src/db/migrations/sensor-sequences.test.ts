/**
 * SQLite 25 and PostgreSQL 10 move each sensor's last upload sequence off its row into
 * sensor_sequences: a sensor keeps the sequence it had, so a batch it sends again after the
 * upgrade is still known for a duplicate.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { dropTestDatabase, freshTestDatabase } from '../../../test/support/postgres.js';
import { tempDir } from '../../../test/support/temp.js';
import type { SqlDatabase } from '../database.js';
import { PostgresDatabase } from '../dialects/postgres.js';
import { SqliteDatabase } from '../dialects/sqlite.js';
import { migrate } from '../migrate.js';
import { SqlSensorsStore } from '../../modules/sensors/sensors.store.js';
import { postgresMigrations } from './postgres.js';
import { sqliteMigrations } from './sqlite.js';
import type { Migration } from './types.js';

async function sequencesAfterUpgrade(db: SqlDatabase, migrations: readonly Migration[], version: number): Promise<number[]> {
  await migrate(db, migrations.filter((m) => m.version < version));
  for (const sequence of [0, 41]) {
    await db.run(
      `INSERT INTO sensors (group_id, secret_hash, os_type, host_type, computer_name, build_version_string, registration_ms, last_sequence)
       VALUES (1, 'x', 'linux', 'server', 'host', '', 0, ?)`,
      [sequence],
    );
  }
  await migrate(db, migrations);
  const sensors = new SqlSensorsStore(db);
  return (await sensors.list({})).map((sensor) => sensor.lastSequence);
}

describe('the sensor upload sequences migration', () => {
  let name = '';
  const opened: SqlDatabase[] = [];
  after(async () => {
    for (const db of opened) await db.close();
    if (name) await dropTestDatabase(name);
  });

  it('keeps each sensor\'s sequence on SQLite (25)', async () => {
    const db = SqliteDatabase.open(join(tempDir('vigil-sequences-'), 'store.db'));
    opened.push(db);
    assert.deepEqual(await sequencesAfterUpgrade(db, sqliteMigrations, 25), [0, 41]);
  });

  it('keeps each sensor\'s sequence on PostgreSQL (10)', async () => {
    const fresh = await freshTestDatabase('blank', async () => undefined);
    name = fresh.name;
    const db = PostgresDatabase.open(fresh.url, { poolSize: 2 });
    opened.push(db);
    assert.deepEqual(await sequencesAfterUpgrade(db, postgresMigrations, 10), [0, 41]);
  });
});
