/**
 * Live response with the analyst on one server and the sensor on another, on real databases
 * through two "servers" (two pools on one PostgreSQL database; two connections to one SQLite
 * file), each with its own services and in-memory waiters, as two `vigil serve` processes would
 * have: the sensor attaches and answers on server B while the analyst waits on server A. On
 * PostgreSQL a notice wakes the waiter within a second (polling set far off, so only the notice
 * can); without notices, or on SQLite, the poll does, within its period. Isolation requested on A
 * reaches the sensor checking in on B, and B's confirmation reads on both.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import type { PostgresDatabase } from '../../db/dialects/postgres.js';
import type { Listening } from '../../db/dialects/postgres-listener.js';
import type { Principal } from '../../domain/permissions.js';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import { SIMULATED_ATTACH } from '../../../test/support/live-response.js';
import { tempDir } from '../../../test/support/temp.js';
import { twoPostgresServers, twoSqliteServers, type TwoServers } from '../../../test/support/two-servers.js';
import { planUpdate } from '../sensors/sensor-requests.js';
import { SqlSensorsStore } from '../sensors/sensors.store.js';
import { PostgresCommandNotices } from './command-notices.postgres.js';
import { CommandWaiters, type CommandNotices } from './command-waiters.js';
import { LiveResponseCheckin } from './live-response-checkin.js';
import { LiveResponseExpiry } from './live-response-expiry.js';
import { LiveResponseFiles } from './live-response-files.js';
import { LiveResponseService } from './live-response.service.js';
import { SqlLiveResponseStore } from './live-response.store.js';

const ADMIN: Principal = { userId: 1, username: 'admin', globalAdmin: true, groupAccess: new Map() };
const MINUTE = 60_000;

/** One server's live response and sensors, on its own connections and with its own waiters. */
function serverOn(db: SqlDatabase, options: { notices?: CommandNotices; pollMs: number }) {
  const store = new SqlLiveResponseStore(db);
  const sensors = new SqlSensorsStore(db);
  const files = new LiveResponseFiles(join(tempDir('vigil-lr-'), 'files'), 1_000_000);
  const expiry = new LiveResponseExpiry(store, sensors, files, { checkinTimeoutMs: MINUTE, sessionTimeoutMs: MINUTE, commandTimeoutMs: MINUTE }, 86_400_000);
  const waiters = new CommandWaiters(options);
  const service = new LiveResponseService(store, sensors, sensors, expiry, files, waiters, {
    enabled: true, checkInTimeoutSeconds: 60, sessionTimeoutSeconds: 60, sensorWaitTimeoutSeconds: 60, storageTtlDays: 1,
  });
  const checkin = new LiveResponseCheckin(store, expiry, waiters, 2);
  /** A check-in as the sensor service runs it: acknowledgements recorded, then live response's part, then what is pending. */
  const sensorCheckin = async (sensor: SensorIdentity, completed: { id: number; result?: unknown }[] = []) => {
    const now = Date.now();
    await sensors.completeInstructions(sensor.id, completed, now);
    await checkin.checkin(sensor, completed, now);
    return sensors.pendingInstructions(sensor.id, now);
  };
  return { sensors, service, waiters, sensorCheckin };
}

async function registered(db: SqlDatabase): Promise<SensorIdentity> {
  const record = await new SqlSensorsStore(db).register({
    groupId: 1, secretHash: 'x', osType: 'windows', hostType: 'workstation', registrationMs: Date.now(), computerName: 'WIN-TWO-SERVERS',
    computerDnsName: '', computerSid: '', osEnvironmentDisplayString: '', buildVersionString: '006.001.002.71109',
    buildId: 0, bootId: '1', networkAdapters: '', physicalMemorySize: 0, systemvolumeTotalSize: 0, systemvolumeFreeSize: 0,
  });
  return { id: record.id, groupId: 1, hostname: 'WIN-TWO-SERVERS', hostType: 'workstation', osType: 'windows' };
}

/** Opens a session on A, has the sensor attach and receive a command on B, and answers it on B while the analyst waits on A; the wait's length. */
async function answeredAcross(a: ReturnType<typeof serverOn>, b: ReturnType<typeof serverOn>, sensor: SensorIdentity): Promise<number> {
  const session = await a.service.create(ADMIN, sensor.id);
  const opening = (await b.sensorCheckin(sensor)).find((i) => i.type === 'live_response_session')!;
  await b.sensorCheckin(sensor, [{ id: opening.id, result: SIMULATED_ATTACH }]);
  assert.equal((await a.service.get(ADMIN, session.id)).status, 'active', 'attached on B, active on A');
  const command = await a.service.createCommand(ADMIN, session.id, { name: 'process list' });
  const delivered = (await b.sensorCheckin(sensor)).find((i) => i.type === 'live_response')!;
  let woke = 0;
  const waiting = a.service.getCommand(ADMIN, session.id, command.id, true).then((read) => ((woke = Date.now()), read));
  await new Promise((resolve) => setTimeout(resolve, 100));
  const answered = Date.now();
  await b.sensorCheckin(sensor, [{ id: delivered.id, result: { status: 'complete', processes: [] } }]);
  const read = await waiting;
  assert.equal(read.status, 'complete');
  await a.service.update(ADMIN, session.id, { status: 'close' });
  return woke - answered;
}

describe('live response across two servers on PostgreSQL', () => {
  let servers: TwoServers<PostgresDatabase>;
  const listening: Listening[] = [];
  before(async () => {
    servers = await twoPostgresServers();
  });
  after(async () => {
    for (const listener of listening) await listener.close();
    await servers.close();
  });

  it('wakes the analyst waiting on one server within a second of the answer recorded on the other, by notice', async (t: TestContext) => {
    const [noticesA, noticesB] = [new PostgresCommandNotices(servers.a), new PostgresCommandNotices(servers.b)];
    // Polls an hour apart: only the notice can wake the waiter in time.
    const a = serverOn(servers.a, { notices: noticesA, pollMs: 3_600_000 });
    const b = serverOn(servers.b, { notices: noticesB, pollMs: 3_600_000 });
    listening.push(await noticesA.listenFor(a.waiters), await noticesB.listenFor(b.waiters));
    const sensor = await registered(servers.a);
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) delays.push(await answeredAcross(a, b, sensor));
    t.diagnostic(`answer on B to waiter woken on A, by NOTIFY: ${delays.join(', ')} ms`);
    assert.ok(Math.max(...delays) < 1000, `woken ${Math.max(...delays)} ms after the answer`);
  });

  it('still wakes the waiter by polling when no notice comes', async (t: TestContext) => {
    const a = serverOn(servers.a, { pollMs: 300 });
    const b = serverOn(servers.b, { pollMs: 300 });
    const sensor = await registered(servers.a);
    const delay = await answeredAcross(a, b, sensor);
    t.diagnostic(`answer on B to waiter woken on A, by polling every 300 ms: ${delay} ms`);
    assert.ok(delay < 1000, `woken ${delay} ms after the answer`);
  });

  it('delivers an isolation requested on one server to the sensor checking in on the other, and shows its confirmation on both', async () => {
    const [a, b] = [serverOn(servers.a, { pollMs: 1000 }), serverOn(servers.b, { pollMs: 1000 })];
    const sensor = await registered(servers.a);
    await a.sensors.modify(sensor.id, (current) => planUpdate(current, { networkIsolationEnabled: true }), Date.now());
    const isolate = (await b.sensorCheckin(sensor)).find((i) => i.type === 'isolate');
    assert.ok(isolate, 'the sensor checking in on B receives the isolation asked for on A');
    await b.sensorCheckin(sensor, [{ id: isolate.id }]);
    await b.sensors.checkin([{ id: sensor.id, facts: { clockDeltaMs: 0, isIsolating: true, lastCheckinMs: Date.now(), nextCheckinMs: Date.now() + MINUTE } }]);
    for (const server of [a, b]) {
      const record = (await server.sensors.get(sensor.id))!;
      assert.deepEqual([record.networkIsolationEnabled, record.isIsolating], [true, true]);
    }
    assert.deepEqual((await b.sensorCheckin(sensor)).filter((i) => i.type === 'isolate'), [], 'delivered once');
  });
});

describe('live response across two connections to one SQLite file', () => {
  let servers: TwoServers;
  before(async () => {
    servers = await twoSqliteServers();
  });
  after(() => servers.close());

  it('wakes the waiter by polling', async () => {
    const a = serverOn(servers.a, { pollMs: 300 });
    const b = serverOn(servers.b, { pollMs: 300 });
    const delay = await answeredAcross(a, b, await registered(servers.a));
    assert.ok(delay < 1000, `woken ${delay} ms after the answer`);
  });
});
