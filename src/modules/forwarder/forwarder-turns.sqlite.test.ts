/**
 * An output's turn while its cursor write waits for SQLite's write lock (as it waits behind
 * ingest's commits): the next batch is read and made meanwhile, but none of it reaches the
 * receiver before the cursor of the batch before is stored, so a restart repeats at most one batch.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { it } from 'node:test';
import Database from 'better-sqlite3';
import { tempDir } from '../../../test/support/temp.js';
import { SqliteDatabase } from '../../db/dialects/sqlite.js';
import { migrate } from '../../db/migrate.js';
import { sqliteMigrations } from '../../db/migrations/sqlite.js';
import { addAlert } from './forwarder.store.contract.js';
import { sqlSources } from './forwarder-sources.js';
import { OutputTurns } from './forwarder-turns.js';
import { SqlForwarderStore } from './forwarder.store.js';

const LOCK_HELD_MS = 300;

it('sends no part of a batch before the cursor of the batch before is stored, however long that waits for the lock', async () => {
  const file = join(tempDir(), 'vigil.db');
  // Waits for the lock on a timer, as the forwarder thread's connection does.
  const db = SqliteDatabase.open(file, { yieldWhenBusy: true });
  await migrate(db, sqliteMigrations);
  const store = new SqlForwarderStore(db);
  for (let id = 1; id <= 4; id++) await addAlert(db, id, 1000 + id);
  const other = new Database(file);
  /** Per request as it arrived: its alerts and the cursor stored then. */
  const arrivals: { alerts: string[]; cursor: string | undefined }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const { alerts } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { alerts: { unique_id: string }[] };
      const row = other.prepare('SELECT position FROM forwarder_cursors').get() as { position: string } | undefined;
      arrivals.push({ alerts: alerts.map((alert) => alert.unique_id), cursor: row?.position });
      if (arrivals.length === 1) {
        // Another connection takes the write lock while the first batch is delivered, so that its cursor write waits.
        other.exec('BEGIN IMMEDIATE');
        setTimeout(() => other.exec('COMMIT'), LOCK_HELD_MS);
      }
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const output = await store.create({ name: 'soar', enabled: true, kind: 'http', format: 'json', settings: { url }, sources: { events_alert: true } }, 0);
  const sources = { sql: sqlSources(db, { serverName: 'vigil-test', version: '1.0.0' }, 30_000), raw: { only: () => assert.fail('no raw events were asked for') } };
  const turns = new OutputTurns(store, sources, { batchSize: 2, horizonMs: 0, fileDir: tempDir(), maxBusyShare: 1, now: () => 10_000 });
  const began = Date.now();
  try {
    assert.equal(await turns.turn(output), true);
  } finally {
    await turns.close();
    server.close();
    other.close();
    await db.close();
  }
  assert.deepEqual(arrivals, [
    { alerts: ['alert-1', 'alert-2'], cursor: undefined },
    { alerts: ['alert-3', 'alert-4'], cursor: '[1002,2]' },
  ]);
  assert.ok(Date.now() - began >= LOCK_HELD_MS, 'the cursor write waited for the lock');
});
