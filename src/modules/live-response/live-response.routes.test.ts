/**
 * Live response as cbapi drives it (reference admin §7), every step through the real API and the
 * real check-in endpoint: session create → pending → the sensor attaches at a check-in → active;
 * commands queued as instructions and finished by the sensor's acknowledgements; files fetched
 * and sent; close; and an isolated sensor that still answers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';
import {
  activeSession, deliveredCommand, instructionsOfType, lr, SESSION, SIMULATED_ATTACH,
} from '../../../test/support/live-response.js';
import { checkin, registerSensor } from '../../../test/support/sensors.js';

const CHECKIN_SECONDS = 30;
const LIVE_RESPONSE_CHECKIN_SECONDS = 2;

describe('live response', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp({ checkinIntervalSeconds: CHECKIN_SECONDS, liveResponseCheckinSeconds: LIVE_RESPONSE_CHECKIN_SECONDS });
  });
  after(() => test.close());

  it('opens a session pending until the sensor attaches at a check-in, then active with what the sensor offers', async () => {
    const sensor = await registerSensor(test, { computer_name: 'WIN-LR-01', network_adapters: [{ ip: '10.9.8.7', mac: '00155D000001' }] });
    const created = await lr(test, 'POST', SESSION, { sensor_id: sensor.id });
    assert.equal(created.statusCode, 200, created.body);
    const session = created.json();
    assert.equal(session.status, 'pending');
    assert.deepEqual(
      [session.sensor_id, session.hostname, session.address, session.supported_commands, session.storage_size],
      [sensor.id, 'WIN-LR-01', '10.9.8.7', [], '0'],
    );
    assert.equal(typeof session.create_time, 'number');
    assert.ok(Math.abs(session.create_time - Date.now() / 1000) < 60, 'epoch seconds');
    assert.deepEqual(
      [session.check_in_timeout, session.session_timeout, session.sensor_wait_timeout, session.storage_ttl], [1200, 300, 120, 7],
    );
    const again = await lr(test, 'POST', SESSION, { sensor_id: sensor.id });
    assert.equal(again.json().id, session.id, 'a sensor has one open session');
    const listed = (await lr(test, 'GET', `${SESSION}?active_only=true`)).json() as { id: number; status: string }[];
    assert.deepEqual(listed.filter((s) => s.id === session.id).map((s) => s.status), ['pending']);

    const { reply, instructions } = await instructionsOfType(test, sensor, 'live_response_session');
    assert.deepEqual(instructions.map((i) => i.payload), [{ session_id: session.id }]);
    assert.equal(reply.next_checkin_seconds, LIVE_RESPONSE_CHECKIN_SECONDS, 'the sensor checks in often while a session is open');
    assert.equal((await lr(test, 'GET', `${SESSION}/${session.id}`)).json().status, 'pending', 'delivered is not attached');

    await checkin(test, sensor, { completed: [{ id: instructions[0]!.id, result: SIMULATED_ATTACH }] });
    const active = (await lr(test, 'GET', `${SESSION}/${session.id}`)).json();
    assert.equal(active.status, 'active');
    assert.deepEqual(active.supported_commands, SIMULATED_ATTACH.supported_commands);
    assert.deepEqual(active.drives, ['C:\\']);
    assert.equal(active.current_working_directory, 'C:\\Windows\\CarbonBlack');
    assert.deepEqual((await instructionsOfType(test, sensor, 'live_response_session')).instructions, [], 'attached once');
  });

  it('ends the session in error when the sensor cannot attach, or answers without saying what it offers', async () => {
    for (const result of [{ status: 'error', result_desc: 'live response is off on this host' }, undefined]) {
      const sensor = await registerSensor(test);
      const session = (await lr(test, 'POST', SESSION, { sensor_id: sensor.id })).json();
      const queued = (await lr(test, 'POST', `${SESSION}/${session.id}/command`, { name: 'process list' })).json();
      const { instructions } = await instructionsOfType(test, sensor, 'live_response_session');
      const refused = await checkin(test, sensor, { completed: [{ id: instructions[0]!.id, ...(result ? { result } : {}) }] });
      assert.deepEqual(refused.instructions, [], 'the queued command is withdrawn');
      assert.equal(refused.next_checkin_seconds, CHECKIN_SECONDS);
      assert.equal((await lr(test, 'GET', `${SESSION}/${session.id}`)).json().status, 'error');
      assert.equal((await lr(test, 'GET', `${SESSION}/${session.id}/command/${queued.id}`)).json().status, 'error');
      assert.match((await lr(test, 'POST', `${SESSION}/${session.id}/command`, { name: 'process list' })).body, /^Session \d+ is in error/);
    }
  });

  it('runs a command: pending until the sensor answers at a check-in, then complete with its output', async () => {
    const sensor = await registerSensor(test);
    const sessionId = await activeSession(test, sensor);
    const { command, instruction } = await deliveredCommand(test, sensor, sessionId, { name: 'process list' });
    assert.deepEqual(
      [command.status, command.name, command.session_id, command.sensor_id, command.username], ['pending', 'process list', sessionId, sensor.id, 'admin'],
    );
    assert.equal(command.result_code, undefined, 'no result while pending');
    assert.deepEqual(instruction.payload, { session_id: sessionId, command_id: command.id, name: 'process list' });
    assert.equal((await lr(test, 'GET', `${SESSION}/${sessionId}/command/${command.id}`)).json().status, 'pending', 'delivered is not done');

    const processes = [
      { pid: 4, parent: 0, path: 'c:\\windows\\system32\\ntoskrnl.exe', command_line: '', create_time: 1_700_000_000, sid: 's-1-5-18', username: 'SYSTEM' },
      { pid: 612, parent: 4, path: 'c:\\windows\\system32\\smss.exe', command_line: 'smss.exe', create_time: 1_700_000_001 },
    ];
    const answered = await checkin(test, sensor, {
      completed: [{ id: instruction.id, result: { status: 'complete', processes, sneaky: true, id: 999, status_text: 'x' } }],
    });
    assert.equal(answered.next_checkin_seconds, LIVE_RESPONSE_CHECKIN_SECONDS);
    const done = (await lr(test, 'GET', `${SESSION}/${sessionId}/command/${command.id}`)).json();
    assert.equal(done.status, 'complete');
    assert.equal(done.id, command.id, 'the sensor cannot rewrite the command');
    assert.deepEqual([done.result_code, done.result_type, done.result_desc], [0, 'WinHresult', '']);
    assert.deepEqual(done.processes, processes);
    assert.equal(done.sneaky, undefined);
    assert.equal(typeof done.completion, 'number');
    assert.deepEqual((await lr(test, 'GET', `${SESSION}/${sessionId}/command`)).json().map((c: { id: number }) => c.id), [command.id]);
  });

  it('ends a command in error as the sensor reports it, or when its answer is malformed', async () => {
    const sensor = await registerSensor(test);
    const sessionId = await activeSession(test, sensor);
    const kill = await deliveredCommand(test, sensor, sessionId, { name: 'kill', object: '99999' });
    assert.equal(kill.command.object, 99999, 'a pid');
    const listing = await deliveredCommand(test, sensor, sessionId, { name: 'directory list', object: 'C:\\Temp\\' });
    await checkin(test, sensor, {
      completed: [
        { id: kill.instruction.id, result: { status: 'error', result_code: 2147942487, result_type: 'WinHresult', result_desc: 'no such process' } },
        { id: listing.instruction.id, result: { status: 'complete', files: 'not a list' } },
      ],
    });
    const read = async (id: number) => (await lr(test, 'GET', `${SESSION}/${sessionId}/command/${id}`)).json();
    const killed = await read(kill.command.id);
    assert.deepEqual([killed.status, killed.result_code, killed.result_desc], ['error', 2147942487, 'no such process']);
    const listed = await read(listing.command.id);
    assert.deepEqual([listed.status, listed.result_code, listed.result_desc], ['error', 0x80004005, 'The sensor sent a malformed result']);

    await checkin(test, sensor, { completed: [{ id: kill.instruction.id, result: { status: 'complete' } }] });
    assert.equal((await read(kill.command.id)).status, 'error', 'a finished command stays as it finished');
  });

  it('fetches a file: the sensor uploads the content before it acknowledges, and the client reads it', async () => {
    const sensor = await registerSensor(test);
    const sessionId = await activeSession(test, sensor);
    const { command, instruction } = await deliveredCommand(test, sensor, sessionId, { name: 'get file', object: 'C:\\test.txt' });
    assert.equal(typeof command.file_id, 'number');
    assert.deepEqual(instruction.payload, { session_id: sessionId, command_id: command.id, name: 'get file', object: 'C:\\test.txt', file_id: command.file_id });
    const content = `${SESSION}/${sessionId}/file/${command.file_id}/content`;
    assert.equal((await lr(test, 'GET', content)).statusCode, 404, 'nothing to read yet');

    const bytes = Buffer.from([0, 1, 2, 250, 251, 252, ...Buffer.from('hello from the endpoint')]);
    const upload = (headers: Record<string, string>) => test.app.inject({
      method: 'PUT', url: `/sensor/v1/live-response/files/${command.file_id}`,
      headers: { ...headers, 'content-type': 'application/octet-stream' }, payload: bytes,
    });
    const other = await registerSensor(test);
    assert.equal((await upload(other.headers)).statusCode, 404, 'another sensor cannot fill it');
    assert.equal((await upload({ authorization: `Sensor ${sensor.id}:${'0'.repeat(64)}` })).statusCode, 401);
    const uploaded = await upload(sensor.headers);
    assert.equal(uploaded.statusCode, 200, uploaded.body);
    assert.deepEqual(uploaded.json(), { file_id: command.file_id, size: bytes.length });
    await checkin(test, sensor, { completed: [{ id: instruction.id, result: { status: 'complete' } }] });

    assert.equal((await lr(test, 'GET', `${SESSION}/${sessionId}/command/${command.id}`)).json().status, 'complete');
    const read = await lr(test, 'GET', content);
    assert.equal(read.statusCode, 200);
    assert.equal(read.headers['content-type'], 'application/octet-stream');
    assert.deepEqual(read.rawPayload, bytes);
    const file = (await lr(test, 'GET', `${SESSION}/${sessionId}/file/${command.file_id}`)).json();
    assert.deepEqual([file.file_name, file.size, file.status], ['C:\\test.txt', bytes.length, 0]);
    assert.equal((await lr(test, 'GET', `${SESSION}/${sessionId}`)).json().storage_size, String(bytes.length));
    assert.equal((await upload(sensor.headers)).statusCode, 404, 'the command is done: no second upload');
  });

  it('ends a get file in error when the sensor says it sent the file but none arrived', async () => {
    const sensor = await registerSensor(test);
    const sessionId = await activeSession(test, sensor);
    const { command, instruction } = await deliveredCommand(test, sensor, sessionId, { name: 'get file', object: '/etc/hosts' });
    await checkin(test, sensor, { completed: [{ id: instruction.id, result: { status: 'complete' } }] });
    const read = (await lr(test, 'GET', `${SESSION}/${sessionId}/command/${command.id}`)).json();
    assert.equal(read.status, 'error');
    assert.match(read.result_desc, /never arrived/);
  });

  it('sends a file: uploaded as cbapi does (multipart), downloaded by the sensor for put file', async () => {
    const sensor = await registerSensor(test);
    const sessionId = await activeSession(test, sensor);
    const boundary = 'cbapi-boundary';
    const bytes = Buffer.from('payload for the endpoint\n');
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="tool.bat"\r\nContent-Type: application/octet-stream\r\n\r\n`),
      bytes, Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const uploaded = await test.app.inject({
      method: 'POST', url: `${SESSION}/${sessionId}/file`, headers: { ...as(test.adminToken), 'content-type': `multipart/form-data; boundary=${boundary}` }, payload: body,
    });
    assert.equal(uploaded.statusCode, 200, uploaded.body);
    const fileId = uploaded.json().id;
    assert.deepEqual([uploaded.json().file_name, uploaded.json().size], ['tool.bat', bytes.length]);
    assert.equal((await lr(test, 'POST', `${SESSION}/${sessionId}/command`, { name: 'put file', object: 'C:\\x.bat' })).statusCode, 400, 'put file needs file_id');
    assert.equal((await lr(test, 'POST', `${SESSION}/${sessionId}/command`, { name: 'put file', object: 'C:\\x.bat', file_id: 9999 })).statusCode, 400);

    const { command, instruction } = await deliveredCommand(test, sensor, sessionId, { name: 'put file', object: 'C:\\tool.bat', file_id: fileId });
    assert.equal((instruction.payload as { file_id: number }).file_id, fileId);
    const download = await test.app.inject({ url: `/sensor/v1/live-response/files/${fileId}`, headers: sensor.headers });
    assert.equal(download.statusCode, 200);
    assert.deepEqual(download.rawPayload, bytes);
    await checkin(test, sensor, { completed: [{ id: instruction.id, result: { status: 'complete' } }] });
    assert.equal((await lr(test, 'GET', `${SESSION}/${sessionId}/command/${command.id}`)).json().status, 'complete');
    assert.equal((await test.app.inject({ url: `/sensor/v1/live-response/files/${fileId}`, headers: sensor.headers })).statusCode, 404, 'only while the command is pending');
  });

  it('answers a waiting read as soon as the sensor answers', async () => {
    const sensor = await registerSensor(test);
    const sessionId = await activeSession(test, sensor);
    const { command, instruction } = await deliveredCommand(test, sensor, sessionId, { name: 'directory list', object: 'C:\\' });
    const started = Date.now();
    const waiting = lr(test, 'GET', `${SESSION}/${sessionId}/command/${command.id}?wait=true`);
    const files = [{ filename: 'Windows', attributes: ['DIRECTORY'], size: 0 }];
    setTimeout(() => void checkin(test, sensor, { completed: [{ id: instruction.id, result: { status: 'complete', files } }] }), 200);
    const read = (await waiting).json();
    assert.equal(read.status, 'complete');
    assert.deepEqual(read.files, files);
    assert.ok(Date.now() - started < 5_000, 'woken by the answer, not by the timeout');
  });

  it('closes a session as cbapi does: commands not yet answered are cancelled and never reach the sensor', async () => {
    const sensor = await registerSensor(test);
    const sessionId = await activeSession(test, sensor);
    const posted = await lr(test, 'POST', `${SESSION}/${sessionId}/command`, { name: 'process list' });
    const session = (await lr(test, 'GET', `${SESSION}/${sessionId}`)).json();
    const closed = await lr(test, 'PUT', `${SESSION}/${sessionId}`, { ...session, status: 'close' });
    assert.equal(closed.statusCode, 200, closed.body);
    assert.equal(closed.json().status, 'close');
    assert.equal((await lr(test, 'GET', `${SESSION}/${sessionId}`)).json().status, 'close');
    assert.equal((await lr(test, 'GET', `${SESSION}/${sessionId}/command/${posted.json().id}`)).json().status, 'cancel');
    assert.equal((await lr(test, 'PUT', `${SESSION}/${sessionId}`, { ...session, status: 'close' })).statusCode, 200, 'closing twice is harmless');
    assert.equal((await lr(test, 'PUT', `${SESSION}/${sessionId}`, { status: 'active' })).statusCode, 400);

    const { reply, instructions } = await instructionsOfType(test, sensor, 'live_response');
    assert.deepEqual(instructions, [], 'the cancelled command was withdrawn');
    assert.equal(reply.next_checkin_seconds, CHECKIN_SECONDS, 'back to the usual pace');
    const ids = ((await lr(test, 'GET', `${SESSION}?active_only=true`)).json() as { id: number }[]).map((s) => s.id);
    assert.ok(!ids.includes(sessionId));
    assert.ok(((await lr(test, 'GET', SESSION)).json() as { id: number }[]).some((s) => s.id === sessionId), 'listed among all sessions');

    // cbapi opens a fresh session and retries when a 404's text starts with "Session".
    const late = await lr(test, 'POST', `${SESSION}/${sessionId}/command`, { name: 'process list' });
    assert.equal(late.statusCode, 404);
    assert.match(late.body, /^Session \d+ is closed/);
    assert.match((await lr(test, 'GET', `${SESSION}/${sessionId}/keepalive`)).body, /^Session/);
    const fresh = (await lr(test, 'POST', SESSION, { sensor_id: sensor.id })).json();
    assert.notEqual(fresh.id, sessionId);
    assert.equal(fresh.status, 'pending');
  });

  it('keeps working with an isolated sensor: isolation leaves the channel to the server open', async () => {
    const sensor = await registerSensor(test);
    assert.equal((await lr(test, 'PUT', `/api/v1/sensor/${sensor.id}`, { network_isolation_enabled: true })).statusCode, 204);
    const { instructions: [isolate] } = await instructionsOfType(test, sensor, 'isolate');
    await checkin(test, sensor, { completed: [{ id: isolate!.id }], is_isolating: true });
    assert.equal((await lr(test, 'GET', `/api/v1/sensor/${sensor.id}`)).json().is_isolating, true);

    const sessionId = await activeSession(test, sensor);
    const { command, instruction } = await deliveredCommand(test, sensor, sessionId, { name: 'kill', object: 4242 });
    await checkin(test, sensor, { completed: [{ id: instruction.id, result: { status: 'complete' } }], is_isolating: true });
    assert.equal((await lr(test, 'GET', `${SESSION}/${sessionId}/command/${command.id}`)).json().status, 'complete');
    assert.equal((await lr(test, 'GET', `/api/v1/sensor/${sensor.id}`)).json().is_isolating, true, 'still isolated');
  });

  it('refuses what cannot be run with a clear 4xx', async () => {
    const sensor = await registerSensor(test);
    const sessionId = await activeSession(test, sensor);
    const post = (body: unknown) => lr(test, 'POST', `${SESSION}/${sessionId}/command`, body);
    const cases: [unknown, RegExp][] = [
      [{ name: 'format disk', object: 'C:' }, /name/],
      [{ name: 'reg query value', object: 'HKLM\\x' }, /not supported by this sensor/],
      [{ name: 'directory list' }, /object: required/],
      [{ name: 'kill', object: 'explorer.exe' }, /process id/],
      [{ name: 'process list', session_id: sessionId + 1000 }, /session_id/],
    ];
    for (const [body, message] of cases) {
      const response = await post(body);
      assert.equal(response.statusCode, 400, JSON.stringify(body));
      assert.match(response.json().message, message);
    }
    const unknownSensor = await lr(test, 'POST', SESSION, { sensor_id: 99_999 });
    assert.equal(unknownSensor.statusCode, 404);
    assert.match(unknownSensor.body, /^Sensor 99999 not found/);
    assert.match((await lr(test, 'GET', `${SESSION}/99999`)).body, /^Session 99999 not found/);
    assert.equal((await lr(test, 'GET', `${SESSION}/${sessionId}/command/99999`)).statusCode, 404);
    assert.equal((await lr(test, 'POST', SESSION, { sensor_id: 'x' })).statusCode, 400);

    const gone = await registerSensor(test);
    assert.equal((await lr(test, 'PUT', `/api/v1/sensor/${gone.id}`, { uninstall: true })).statusCode, 204);
    const { instructions: [uninstall] } = await instructionsOfType(test, gone, 'uninstall');
    await checkin(test, gone, { completed: [{ id: uninstall!.id }] });
    assert.equal((await lr(test, 'POST', SESSION, { sensor_id: gone.id })).statusCode, 409, 'an uninstalled sensor');
  });

  it('is for global administrators only', async () => {
    const sensor = await registerSensor(test);
    const token = await createUser(test, { username: 'lr-analyst' });
    const response = await lr(test, 'POST', SESSION, { sensor_id: sensor.id }, token);
    assert.equal(response.statusCode, 403);
    assert.equal((await lr(test, 'GET', SESSION, undefined, token)).statusCode, 403);
  });

  it('says so in /api/info', async () => {
    assert.equal((await lr(test, 'GET', '/api/info')).json().cblrEnabled, true);
  });
});

describe('live response switched off', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp({ liveResponseEnabled: false });
  });
  after(() => test.close());

  it('answers 412 and reports cblrEnabled false', async () => {
    const sensor = await registerSensor(test);
    const response = await lr(test, 'POST', SESSION, { sensor_id: sensor.id });
    assert.equal(response.statusCode, 412);
    assert.equal(response.json().reason, 'live_response_disabled');
    assert.equal((await lr(test, 'GET', SESSION)).statusCode, 412);
    assert.equal((await lr(test, 'GET', '/api/info')).json().cblrEnabled, false);
  });
});

describe('live-response file limits', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp({ liveResponseFileLimitBytes: 1024 });
  });
  after(() => test.close());

  it('refuses content over the limit with 413, from the sensor or the analyst, and keeps none of it', async () => {
    const sensor = await registerSensor(test);
    const sessionId = await activeSession(test, sensor);
    const { command } = await deliveredCommand(test, sensor, sessionId, { name: 'get file', object: 'C:\\big.bin' });
    const big = Buffer.alloc(4096, 7);
    const upload = await test.app.inject({
      method: 'PUT', url: `/sensor/v1/live-response/files/${command.file_id}`,
      headers: { ...sensor.headers, 'content-type': 'application/octet-stream' }, payload: big,
    });
    assert.equal(upload.statusCode, 413);
    assert.equal((await lr(test, 'GET', `${SESSION}/${sessionId}/file/${command.file_id}/content`)).statusCode, 404);

    const boundary = 'limit';
    const multipart = await test.app.inject({
      method: 'POST', url: `${SESSION}/${sessionId}/file`, headers: { ...as(test.adminToken), 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`), big, Buffer.from(`\r\n--${boundary}--\r\n`),
      ]),
    });
    assert.equal(multipart.statusCode, 413);
    assert.equal((await lr(test, 'POST', `${SESSION}/${sessionId}/file`, { not: 'multipart' })).statusCode, 400);
  });
});
