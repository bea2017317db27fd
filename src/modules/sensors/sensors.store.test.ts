import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { forEachDialect } from '../../../test/support/dialects.js';
import { tempDir } from '../../../test/support/temp.js';
import { SqliteDatabase } from '../../db/dialects/sqlite.js';
import { migrate } from '../../db/migrate.js';
import { sqliteMigrations } from '../../db/migrations/sqlite.js';
import { sensorsStoreContract } from './sensors.store.contract.js';
import { SqlSensorsStore } from './sensors.store.js';

forEachDialect(sensorsStoreContract);

describe('the sqlite migration that keeps IP addresses apart', () => {
  it('fills them in for sensors registered before it', async () => {
    const dir = tempDir();
    const db = SqliteDatabase.open(join(dir, 'vigil.db'));
    try {
      const ipMigration = sqliteMigrations.findIndex((m) => m.name === 'sensor requests from analysts and the ip filter');
      await migrate(db, sqliteMigrations.slice(0, ipMigration));
      for (const [name, adapters] of [['two', '10.1.2.3,00155d019c08|fe80::1,00155d019c09|'], ['none', '']] as const) {
        await db.run(
          `INSERT INTO sensors (group_id, secret_hash, os_type, host_type, computer_name, build_version_string, network_adapters, registration_ms)
           VALUES (1, 'x', 'windows', 'workstation', ?, '006.001.002.71109', ?, 1)`,
          [name, adapters],
        );
      }
      await migrate(db, sqliteMigrations);
      assert.deepEqual(await db.all('SELECT computer_name, ip_addresses FROM sensors ORDER BY id'), [
        { computer_name: 'two', ip_addresses: '|10.1.2.3|fe80::1|' },
        { computer_name: 'none', ip_addresses: '' },
      ]);
      const found = await new SqlSensorsStore(db).list({ ip: 'fe80' });
      assert.deepEqual(found.map((sensor) => sensor.computerName), ['two']);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
