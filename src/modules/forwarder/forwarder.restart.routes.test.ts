/**
 * A file output across restarts of the server: what was delivered before a stop is not written
 * again, and what arrived while no server forwarded is written once forwarding resumes; the file
 * rotates by size meanwhile. On the embedded store and, with VIGIL_TEST_STORE=postgres, on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { as, startTestApp, testStore, type TestApp } from '../../../test/support/app.js';
import { eventually } from '../../../test/support/forward-receivers.js';
import { freshMigratedDatabase } from '../../../test/support/postgres-migrated.js';
import { dropTestDatabase } from '../../../test/support/postgres.js';
import { binaryMetadata, processEvents, registerSensor, uploadBinary, uploadEvents, type TestSensor } from '../../../test/support/sensors.js';
import { tempDir } from '../../../test/support/temp.js';

const FAST = { forwarderPollMs: 50, forwarderCommitHorizonMs: 0, forwarderBatchSize: 2 };
const dataDir = tempDir('vigil-forward-restart-');
const outDir = join(dataDir, 'forwarder', 'archive');
const database = testStore() === 'postgres' ? await freshMigratedDatabase() : undefined;

after(async () => {
  if (database) await dropTestDatabase(database.name);
  rmSync(dataDir, { recursive: true, force: true });
});

const start = (overrides: object = {}) => startTestApp({ ...FAST, dataDir, ...(database && { databaseUrl: database.url }), ...overrides });

/** Every line of the output file and the files it rotated to. */
function forwardedLines(): Record<string, unknown>[] {
  let names: string[];
  try {
    names = readdirSync(outDir);
  } catch {
    return [];
  }
  return names.flatMap((name) => readFileSync(join(outDir, name), 'utf8').split('\n').filter((line) => line !== ''))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function ingest(test: TestApp, sensor: TestSensor, sequence: number, pid: number): Promise<void> {
  const response = await uploadEvents(test, sensor, sequence, processEvents(pid, Date.now()));
  assert.equal(response.statusCode, 200, response.body);
  await test.container.services.ingest.flush();
}

it('resumes from its cursor after a restart: nothing lost, nothing written twice', async () => {
  const first = await start();
  let sensor: TestSensor;
  try {
    sensor = await registerSensor(first);
    const created = await first.app.inject({
      method: 'POST', url: '/api/v1/forwarder/outputs', headers: as(first.adminToken),
      payload: { name: 'archive', type: 'file', path: 'archive/events.json', rotate_bytes: 2048, events_raw_sensor: ['ALL'], events_binary_observed: true },
    });
    assert.equal(created.statusCode, 200, created.body);
    await ingest(first, sensor, 1, 6100);
    const content = Buffer.from('MZ forwarded binary');
    assert.equal((await uploadBinary(first, sensor, binaryMetadata(content, { observed_filename: 'c:\\tmp\\f.exe' }), content)).statusCode, 200);
    await eventually(() => forwardedLines().length >= 9, '9 records before the restart');
  } finally {
    await first.close();
  }
  assert.ok(readdirSync(outDir).length > 1, 'the file rotated by size');

  // A server that does not forward takes events in: they wait in the store.
  const quiet = await start({ forwarderEnabled: false });
  try {
    await ingest(quiet, sensor, 2, 6200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(forwardedLines().length, 9);
  } finally {
    await quiet.close();
  }

  const resumed = await start();
  try {
    await eventually(() => forwardedLines().length >= 17, '17 records after the restart');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const lines = forwardedLines();
    const keys = lines.map((line) => `${String(line.type)} ${String(line.process_guid ?? line.md5)} ${String(line.timestamp)}`);
    assert.equal(lines.length, 17);
    assert.equal(new Set(keys).size, 17, 'no record twice');
    assert.equal(lines.filter((line) => line.type === 'binaryinfo.observed').length, 1);
    assert.equal(lines.filter((line) => line.type === 'ingress.event.procstart').length, 2);
  } finally {
    await resumed.close();
  }
});
