/**
 * Issue 18 point 5 with two whole `vigil serve` processes on one PostgreSQL database: what one
 * server takes in, the other serves within a second; an isolation and a live-response session
 * asked for on one reach a sensor that talks to the other; tokens and passwords made on one work
 * on the other. Run by scripts/run-tests.js after `npm run build`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SIMULATED_ATTACH } from './support/live-response.js';
import { processEvents } from './support/sensors.js';
import { call, checkinOn, pollUntil, registerSensor, startCluster, uploadOn, type Cluster } from './support/vigil-cluster.js';
import type { Server } from './support/vigil-cli.js';

describe('two vigil servers on one PostgreSQL database', () => {
  let cluster: Cluster;
  let a: Server;
  let b: Server;
  let token: string;
  before(async () => {
    cluster = await startCluster(2);
    [a, b] = cluster.servers as [Server, Server];
    token = cluster.adminToken;
  });
  after(() => cluster.close());

  it('an upload acknowledged by A is found by a process search on B within a second', async () => {
    const sensor = await registerSensor(a, token, { computer_name: 'LAG-01' });
    const lags: number[] = [];
    for (let round = 1; round <= 3; round++) {
      const pid = 7000 + round;
      const ack = await uploadOn(a, sensor, round, processEvents(pid, Date.now()));
      assert.equal(ack.status, 200, JSON.stringify(ack.body));
      assert.equal(ack.body.accepted, 8);
      const acknowledged = Date.now();
      const found = await pollUntil(
        () => call(b, token, 'GET', `/api/v1/process?q=${encodeURIComponent(`hostname:LAG-01 process_pid:${pid}`)}`),
        (search) => search.status === 200 && search.body.total_results === 1,
        1_000,
      );
      assert.ok(found.ok, `B found the process within a second: ${JSON.stringify(found.value.body)}`);
      lags.push(Date.now() - acknowledged);
    }
    console.log(`# from A's acknowledgement to B's search: ${lags.join(', ')} ms`);
  });

  it('an isolation asked of A reaches the sensor checking in on B, and its confirmation shows on both', async () => {
    const sensor = await registerSensor(b, token, { computer_name: 'ISO-01' });
    const asked = await call(a, token, 'PUT', `/api/v1/sensor/${sensor.id}`, { network_isolation_enabled: true });
    assert.equal(asked.status, 204, JSON.stringify(asked.body));
    const reply = await checkinOn(b, sensor);
    assert.equal(reply.status, 200);
    const isolate = reply.body.instructions.find((instruction) => instruction.type === 'isolate');
    assert.ok(isolate, `B delivers the isolation asked of A: ${JSON.stringify(reply.body)}`);
    assert.equal((await checkinOn(b, sensor, { completed: [{ id: isolate.id }], is_isolating: true })).status, 200);
    for (const server of [a, b]) {
      const record = await call(server, token, 'GET', `/api/v1/sensor/${sensor.id}`);
      assert.deepEqual([record.body.network_isolation_enabled, record.body.is_isolating], [true, true], server.url);
    }
  });

  it('a live-response session opened on A runs a command on a sensor that talks to B; a waiting read on A wakes', async () => {
    const sensor = await registerSensor(b, token, { computer_name: 'LR-01' });
    const session = await call(a, token, 'POST', '/api/v1/cblr/session', { sensor_id: sensor.id });
    assert.equal(session.status, 200, JSON.stringify(session.body));
    const sessionId = session.body.id as number;
    const offered = (await checkinOn(b, sensor)).body.instructions.find((i) => i.type === 'live_response_session');
    assert.ok(offered, 'B offers the session opened on A');
    await checkinOn(b, sensor, { completed: [{ id: offered.id, result: SIMULATED_ATTACH }] });
    assert.equal((await call(a, token, 'GET', `/api/v1/cblr/session/${sessionId}`)).body.status, 'active');

    const command = await call(a, token, 'POST', `/api/v1/cblr/session/${sessionId}/command`, { session_id: sessionId, name: 'process list' });
    assert.equal(command.status, 200, JSON.stringify(command.body));
    const delivered = (await checkinOn(b, sensor)).body.instructions.find((i) => i.type === 'live_response');
    assert.ok(delivered, 'B delivers the command posted on A');
    const started = Date.now();
    const waiting = call(a, token, 'GET', `/api/v1/cblr/session/${sessionId}/command/${command.body.id}?wait=true`);
    const processes = [{ pid: 4, parent: 0, path: 'c:\\windows\\system32\\ntoskrnl.exe', command_line: '', create_time: 1_700_000_000 }];
    await new Promise((resolve) => setTimeout(resolve, 200));
    await checkinOn(b, sensor, { completed: [{ id: delivered.id, result: { status: 'complete', processes } }] });
    const done = await waiting;
    console.log(`# A's waiting read woke ${Date.now() - started - 200} ms after the sensor began sending its answer to B`);
    assert.equal(done.body.status, 'complete');
    assert.deepEqual(done.body.processes, processes);
    assert.ok(Date.now() - started < 3_000, 'woken by the answer, not by the timeout');
    assert.equal((await call(b, token, 'GET', `/api/v1/cblr/session/${sessionId}/command/${command.body.id}`)).body.status, 'complete');
  });

  it('a token made on A works on B, and a password set on A logs in on B', async () => {
    const created = await call(a, token, 'POST', '/api/user', {
      username: 'roamer', first_name: 'Ro', last_name: 'Amer', email: 'roamer@example.com', global_admin: false, teams: [],
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const issued = await call(a, token, 'POST', '/api/v1/user/roamer/token');
    assert.equal(issued.status, 200);
    const roamer = issued.body.auth_token as string;
    const onB = await call(b, roamer, 'GET', '/api/user/roamer');
    assert.equal(onB.status, 200, JSON.stringify(onB.body));
    assert.equal(onB.body.username, 'roamer');

    const set = await call(a, token, 'PUT', '/api/user/roamer', { password: 'correct horse battery', confirm_password: 'correct horse battery' });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const login = await fetch(`${b.url}/api/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'roamer', password: 'correct horse battery' }),
    });
    assert.equal(login.status, 200, await login.clone().text());
    const cookie = String(login.headers.get('set-cookie')).split(';')[0]!;
    // The session made on B is honoured on A.
    const session = await fetch(`${a.url}/api/auth/session`, { headers: { cookie } });
    assert.equal(session.status, 200);
    assert.equal(((await session.json()) as { username: string }).username, 'roamer');
  });
});
