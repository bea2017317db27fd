/**
 * Registration, check-ins, binary uploads, and event uploads the HTTP layer refuses, through the
 * real sensor protocol routes.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  as, createUser, openAppDatabase, startListeningTestApp, startTestApp, testStore, type ListeningTestApp, type TestApp,
} from '../../../test/support/app.js';
import { hostFacts, installCode, processEvents, registerSensor, type TestSensor } from '../../../test/support/sensors.js';
import { SqlSensorsStore } from './sensors.store.js';

describe('sensor protocol', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp({ checkinIntervalSeconds: 15 });
  });
  after(() => test.close());

  /** A binary's content as PostgreSQL keeps it (the embedded store keeps a file). */
  async function storedInDatabase(md5: string): Promise<Buffer | undefined> {
    const db = openAppDatabase(test);
    try {
      const pieces = await db.all<{ data: Buffer }>('SELECT data FROM binary_content_pieces WHERE md5 = ? ORDER BY piece', [md5]);
      const complete = await db.get('SELECT 1 AS found FROM binary_content WHERE md5 = ?', [md5]);
      return complete ? Buffer.concat(pieces.map((p) => p.data)) : undefined;
    } finally {
      await db.close();
    }
  }

  it('gives the install code to group administrators only, the same code every time', async () => {
    const code = await installCode(test);
    assert.match(code, /^[0-9a-f]{48}$/);
    assert.equal(await installCode(test), code);
    const viewer = await createUser(test, { username: 'viewer-only' });
    const denied = await test.app.inject({ url: '/api/v1/group/1/install_code', headers: as(viewer) });
    assert.equal(denied.statusCode, 403);
    const missing = await test.app.inject({ url: '/api/v1/group/999/install_code', headers: as(test.adminToken) });
    assert.equal(missing.statusCode, 404);
  });

  it('registers a sensor that presents the install code, and nobody else', async () => {
    const stranger = await test.app.inject({ method: 'POST', url: '/sensor/v1/register', payload: { install_code: 'guess', ...hostFacts() } });
    assert.equal(stranger.statusCode, 401);
    const registered = await test.app.inject({
      method: 'POST', url: '/sensor/v1/register', payload: { install_code: await installCode(test), ...hostFacts() },
    });
    assert.equal(registered.statusCode, 200);
    const body = registered.json();
    assert.equal(typeof body.sensor_id, 'number');
    assert.match(body.sensor_secret, /^[0-9a-f]{64}$/);
    assert.equal(body.group_id, 1);
    assert.equal(body.checkin_interval_seconds, 15);
    const badVersion = await test.app.inject({
      method: 'POST', url: '/sensor/v1/register',
      payload: { install_code: await installCode(test), ...hostFacts({ build_version_string: '6.1.2' }) },
    });
    assert.equal(badVersion.statusCode, 400);
    assert.match(badVersion.json().message, /build_version_string/);
  });

  it('records check-ins and hands out instructions until they are acknowledged', async () => {
    const sensor = await registerSensor(test, { computer_name: 'WIN-CHECK-01' });
    // Queued through the store: what the API's requests queue is tested in sensor-isolation.test.ts.
    const db = openAppDatabase(test);
    after(() => db.close());
    const store = new SqlSensorsStore(db);
    const instruction = await store.enqueueInstruction(sensor.id, 'isolate', undefined, Date.now());
    const checkin = (body: Record<string, unknown>) =>
      test.app.inject({ method: 'POST', url: '/sensor/v1/checkin', headers: sensor.headers, payload: { sensor_time: Date.now() - 2000, ...body } });

    const first = await checkin({ uptime: 5000, sensor_uptime: 100, is_isolating: false, network_adapters: [{ ip: '10.9.9.9', mac: 'AABBCCDDEEFF' }] });
    assert.equal(first.statusCode, 200);
    assert.equal(first.json().next_checkin_seconds, 15);
    assert.deepEqual(first.json().instructions, [{ id: instruction, type: 'isolate' }]);
    const again = await checkin({});
    assert.deepEqual(again.json().instructions.map((i: { id: number }) => i.id), [instruction], 'sent again until acknowledged');
    const acked = await checkin({ completed: [{ id: instruction }], is_isolating: true });
    assert.deepEqual(acked.json().instructions, []);

    const record = (await store.get(sensor.id))!;
    assert.equal(record.isIsolating, true, 'the sensor\'s own word on isolation is recorded');
    assert.equal(record.uptime, 5000);
    assert.equal(record.networkAdapters, '10.9.9.9,aabbccddeeff|');
    assert.ok(record.clockDeltaMs <= -1900 && record.clockDeltaMs > -10_000, `clock delta ${record.clockDeltaMs}`);
    assert.ok(record.lastCheckinMs! <= Date.now());
    assert.equal(record.nextCheckinMs! - record.lastCheckinMs!, 15_000);
    assert.equal(record.computerName, 'WIN-CHECK-01');
  });

  it('refuses check-ins without the sensor\'s own secret', async () => {
    const sensor = await registerSensor(test);
    for (const authorization of [undefined, `Sensor ${sensor.id}:${'f'.repeat(64)}`, `Sensor 999999:${sensor.secret}`, `Bearer ${sensor.secret}`]) {
      const response = await test.app.inject({
        method: 'POST', url: '/sensor/v1/checkin', headers: authorization ? { authorization } : {}, payload: { sensor_time: 1 },
      });
      assert.equal(response.statusCode, 401, String(authorization));
    }
  });

  it('stores binary content only when it matches its hashes', async () => {
    const sensor = await registerSensor(test);
    const content = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(510, 7)]);
    const md5 = createHash('md5').update(content).digest('hex');
    const sha256 = createHash('sha256').update(content).digest('hex');
    const metadata = {
      md5: md5.toUpperCase(), sha256, size: content.length, observed_filename: 'C:\\Tools\\Thing.exe',
      original_filename: 'thing.exe', is_executable_image: true, digsig: { result: 'Unsigned' },
    };
    const upload = (body: Record<string, unknown>) => test.app.inject({ method: 'POST', url: '/sensor/v1/binaries', headers: sensor.headers, payload: body });

    const wrong = await upload({ metadata: { ...metadata, sha256: '0'.repeat(64) }, content: content.toString('base64') });
    assert.equal(wrong.statusCode, 400);
    assert.equal(wrong.json().reason, 'content_mismatch');
    const incoming = join(test.config.dataDir, 'binaries', 'incoming');
    assert.deepEqual(existsSync(incoming) ? readdirSync(incoming) : [], [], 'refused content is not left staged');
    assert.equal((await test.app.inject({ url: `/sensor/v1/binaries/${md5}`, headers: sensor.headers })).statusCode, 404);

    const right = await upload({ metadata, content: content.toString('base64') });
    assert.equal(right.statusCode, 200, right.body);
    assert.deepEqual(right.json(), { md5, stored: true });
    assert.equal((await test.app.inject({ url: `/sensor/v1/binaries/${md5.toUpperCase()}`, headers: sensor.headers })).statusCode, 200);
    const again = await upload({ metadata: { ...metadata, observed_filename: 'D:\\copy.exe' } });
    assert.deepEqual(again.json(), { md5, stored: true }, 'metadata alone for content the server has');

    const stored = testStore() === 'postgres'
      ? await storedInDatabase(md5)
      : readFileSync(join(test.config.dataDir, 'binaries', md5.slice(0, 2), md5));
    assert.deepEqual(stored, content, 'kept content-addressed by md5');
  });
});

// Over real HTTP: Fastify refuses these bodies before the ingest pipeline sees them, and what comes
// back, and whether the connection and server survive it, is what a sensor in the field would see.
describe('event uploads over the size limit as sent', () => {
  const LIMIT = 16 * 1024;
  let test: ListeningTestApp;
  before(async () => {
    test = await startListeningTestApp({ eventUploadLimitBytes: LIMIT });
  });
  after(() => test.close());

  const post = (sensor: TestSensor, body: Uint8Array | ReadableStream<Uint8Array>) => fetch(`${test.url}/sensor/v1/events`, {
    method: 'POST', headers: { ...sensor.headers, 'content-type': 'application/json' }, body, duplex: 'half',
  } as RequestInit);

  it('answers 413 batch_too_large, counts it for the sensor, and keeps serving', async () => {
    const sensor = await registerSensor(test);
    const events = processEvents(600);
    const oversized = Buffer.from(JSON.stringify({ sequence: 1, events, padding: 'x'.repeat(4 * LIMIT) }));
    // Once with its length declared up front, once streamed in chunks with no length to go by.
    const declared = await post(sensor, oversized);
    const streamed = await post(sensor, new ReadableStream({
      start(controller) {
        for (let at = 0; at < oversized.length; at += 4096) controller.enqueue(oversized.subarray(at, at + 4096));
        controller.close();
      },
    }));
    for (const response of [declared, streamed]) {
      assert.equal(response.status, 413);
      assert.equal(((await response.json()) as { reason: string }).reason, 'batch_too_large', 'the reason docs/sensor-protocol.md names');
    }
    const counters = await test.app.inject({ url: `/api/v1/sensor/${sensor.id}/ingest`, headers: as(test.adminToken) });
    assert.equal(counters.json()['batches_rejected.batch_too_large'], 2);

    const accepted = await post(sensor, Buffer.from(JSON.stringify({ sequence: 1, events })));
    assert.equal(accepted.status, 200, 'still serving, and the refused batches took no sequence number');
    assert.deepEqual(await accepted.json(), { sequence: 1, duplicate: false, accepted: events.length, filtered: 0, rejected: [] });
  });
});
