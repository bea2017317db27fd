/**
 * Bulk alert changes run on their own thread and connection: while another connection holds the
 * write lock they wait for it, and past the wait they fail with DatabaseBusy (a 503 to the
 * client), as the request thread's writes do, not with a bare driver error (a 500).
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { tempDir } from '../../../test/support/temp.js';
import { SqliteDatabase } from '../../db/dialects/sqlite.js';
import { DatabaseBusy } from '../../db/errors.js';
import { migrate } from '../../db/migrate.js';
import { sqliteMigrations } from '../../db/migrations/sqlite.js';
import { ThreadedAlertChanges } from './alert-changes.threaded.js';
import { insertAlert } from './alert-rows.js';
import { alert } from './alerts.store.contract.js';

describe('bulk alert changes while another connection holds the write lock', () => {
  const dir = tempDir();
  const file = join(dir, 'alerts.db');
  let other: Database.Database;
  before(async () => {
    const db = SqliteDatabase.open(file);
    await migrate(db, sqliteMigrations);
    await db.transaction((tx) => insertAlert(tx, alert(1)));
    await db.close();
    other = new Database(file);
  });
  after(() => {
    other.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const resolve = (changes: ThreadedAlertChanges) => changes.change({ uniqueIds: [alert(1).uniqueId] }, 'all', { status: 'Resolved' }, Date.now());
  const status = () => (other.prepare('SELECT status FROM alert_triage').get() as { status: string }).status;

  it('waits for the lock and then applies the change', async () => {
    const changes = new ThreadedAlertChanges(file, { lockWaitMs: 5_000, lockWaiters: undefined });
    other.exec('BEGIN IMMEDIATE');
    setTimeout(() => other.exec('COMMIT'), 300);
    assert.equal(await resolve(changes), 1);
    assert.equal(status(), 'Resolved');
    await changes.close();
  });

  it('fails with DatabaseBusy past the wait, having changed nothing', async () => {
    other.exec("UPDATE alert_triage SET status = 'Unresolved'");
    const changes = new ThreadedAlertChanges(file, { lockWaitMs: 100, lockWaiters: undefined });
    other.exec('BEGIN IMMEDIATE');
    try {
      await assert.rejects(resolve(changes), (error) => error instanceof DatabaseBusy);
    } finally {
      other.exec('COMMIT');
    }
    assert.equal(status(), 'Unresolved');
    await changes.close();
  });
});
