/**
 * Live response end to end: a simulated sensor streaming to a real server, isolated over the API,
 * and a session driven the way cbapi drives one (reference admin §7): find or create the session,
 * poll until active, post commands and poll each until complete, read a fetched file's content,
 * close. The killed process's process_end reaches the event store through the sensor's stream.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseProcessId } from '../src/domain/process-id.js';
import { Endpoint } from '../src/sensor/endpoint.js';
import { simulate } from '../src/sensor/simulator.js';
import { as, openAppDatabase, startTestApp, type TestApp } from './support/app.js';

const SEED = 'live-response-e2e';
const SESSION = '/api/v1/cblr/session';

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(200)) {
    const value = await probe();
    if (value !== undefined) return value;
  }
  throw new Error(`timed out waiting for ${what}`);
}

interface Process { pid: number; parent: number; path: string; proc_guid: string }

/** The calls cbapi's LiveResponseSessionManager and CbLRSessionBase make, in its order. */
class CbapiSession {
  private constructor(private readonly test: TestApp, readonly id: number, readonly data: { supported_commands: string[] }) {}

  private static api(test: TestApp, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) {
    return test.app.inject({ method, url, headers: as(test.adminToken), ...(payload ? { payload } : {}) });
  }

  static async open(test: TestApp, sensorId: number): Promise<CbapiSession> {
    const sessions = (await this.api(test, 'GET', `${SESSION}?active_only=true`)).json() as { id: number; sensor_id: number; status: string }[];
    const existing = sessions.find((s) => s.sensor_id === sensorId && ['pending', 'active'].includes(s.status));
    const id = existing?.id ?? (await this.api(test, 'POST', SESSION, { sensor_id: sensorId })).json().id;
    const data = await eventually('the session to turn active', async () => {
      const session = (await this.api(test, 'GET', `${SESSION}/${id}`)).json();
      return session.status === 'active' ? session : undefined;
    });
    return new CbapiSession(test, id, data);
  }

  /** _lr_post_command then poll_status: the finished command, or a thrown LiveResponseError. */
  async run(name: string, object?: string | number, extra: object = {}): Promise<Record<string, unknown>> {
    assert.ok(this.data.supported_commands.includes(name), `${name} is supported`);
    const posted = await CbapiSession.api(this.test, 'POST', `${SESSION}/${this.id}/command`, { ...extra, name, object, session_id: this.id });
    assert.equal(posted.statusCode, 200, posted.body);
    const id = posted.json().id;
    const done = await eventually(`${name} to finish`, async () => {
      const command = (await CbapiSession.api(this.test, 'GET', `${SESSION}/${this.id}/command/${id}`)).json();
      return command.status === 'pending' ? undefined : command;
    });
    if (done.status !== 'complete') throw new Error(`LiveResponseError: ${JSON.stringify(done)}`);
    return { ...done, file_id: posted.json().file_id };
  }

  async getFile(path: string): Promise<Buffer> {
    const { file_id } = await this.run('get file', path);
    const content = await CbapiSession.api(this.test, 'GET', `${SESSION}/${this.id}/file/${file_id}/content`);
    assert.equal(content.statusCode, 200);
    return content.rawPayload;
  }

  /** _upload_file (multipart field "file") then the put file command. */
  async putFile(content: Buffer, path: string): Promise<void> {
    const boundary = 'cbapi-put-file';
    const upload = await this.test.app.inject({
      method: 'POST', url: `${SESSION}/${this.id}/file`,
      headers: { ...as(this.test.adminToken), 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="file"\r\n\r\n`), content, Buffer.from(`\r\n--${boundary}--\r\n`),
      ]),
    });
    assert.equal(upload.statusCode, 200, upload.body);
    await this.run('put file', path, { file_id: upload.json().id });
  }

  async close(): Promise<void> {
    const session = (await CbapiSession.api(this.test, 'GET', `${SESSION}/${this.id}`)).json();
    assert.equal((await CbapiSession.api(this.test, 'PUT', `${SESSION}/${this.id}`, { ...session, status: 'close' })).statusCode, 200);
  }
}

describe('live response with the simulator against a real server', () => {
  let test: TestApp;
  let server: string;
  before(async () => {
    test = await startTestApp({ liveResponseCheckinSeconds: 1 });
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    server = `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}`;
  });
  after(() => test.close());

  it('lists processes and directories, fetches and puts files, and kills a process on an isolated sensor', async () => {
    // The sensor streams until the session is done with it.
    const stop = new AbortController();
    const running = simulate({ server, token: test.adminToken, sensors: 1, seed: SEED, rate: 300, checkinIntervalS: 3, batchSize: 100, signal: stop.signal });
    try {
      await driveIsolatedSession();
    } finally {
      stop.abort();
    }
    const summary = await running;
    assert.deepEqual(summary.errors, []);
    assert.equal(summary.events_acknowledged, summary.events_sent);
  });

  async function driveIsolatedSession(): Promise<void> {
    const api = (method: 'GET' | 'PUT', url: string, payload?: object) => test.app.inject({ method, url, headers: as(test.adminToken), payload });
    const name = new Endpoint({ seed: SEED, index: 0, startMs: 0 }).facts.computer_name;
    const sensorId = await eventually('the sensor to register', async () => ((await api('GET', `/api/v1/sensor?hostname=${name}`)).json() as { id: number }[])[0]?.id);

    assert.equal((await api('PUT', `/api/v1/sensor/${sensorId}`, { network_isolation_enabled: true })).statusCode, 204);
    await eventually('isolation', async () => ((await api('GET', `/api/v1/sensor/${sensorId}`)).json().is_isolating ? true : undefined));

    const session = await CbapiSession.open(test, sensorId);
    const processes = (await session.run('process list')).processes as Process[];
    assert.ok(processes.length > 3, `${processes.length} processes`);
    const victim = processes.find((p) => p.parent !== 0 && processes.some((other) => other.pid === p.parent))!;
    assert.ok(victim, 'a process with a running parent');
    assert.equal(parseProcessId(victim.proc_guid)?.sensorId, sensorId);

    const separator = victim.path.includes('\\') ? '\\' : '/';
    const directory = victim.path.slice(0, victim.path.lastIndexOf(separator) + 1);
    const files = (await session.run('directory list', `${directory}*`)).files as { filename: string; attributes: string[] }[];
    assert.ok(files.some((f) => directory + f.filename === victim.path && f.attributes.includes('ARCHIVE')), `${victim.path} listed`);

    const content = await session.getFile(victim.path);
    const md5 = createHash('md5').update(content).digest('hex');
    assert.equal((await api('GET', `/api/v1/binary/${md5}/summary`)).statusCode, 200, 'the fetched file is the binary the sensor reported');
    await assert.rejects(session.run('get file', `${directory}no-such-file.bin`), /2147942402/, 'ERROR_FILE_NOT_FOUND');

    const dropped = Buffer.from('@echo off\r\necho collected by vigil\r\n');
    const target = `${directory}vigil-collect.bat`;
    await session.putFile(dropped, target);
    const listed = (await session.run('directory list', directory)).files as { filename: string; size: number }[];
    assert.deepEqual(listed.filter((f) => directory + f.filename === target).map((f) => f.size), [dropped.length]);
    assert.deepEqual(await session.getFile(target), dropped);

    await session.run('kill', victim.pid);
    const after = (await session.run('process list')).processes as Process[];
    assert.ok(!after.some((p) => p.proc_guid === victim.proc_guid), 'the killed process is gone');
    await session.close();

    const db = openAppDatabase(test);
    try {
      const { pid, startMs } = parseProcessId(victim.proc_guid)!;
      await eventually('the process_end of the killed process', async () => {
        const row = await db.get<{ end_ms: number | null }>('SELECT end_ms FROM processes WHERE sensor_id = ? AND pid = ? AND start_ms = ?', [sensorId, pid, startMs]);
        return row?.end_ms ? true : undefined;
      });
    } finally {
      await db.close();
    }
    assert.equal((await api('GET', `/api/v1/sensor/${sensorId}`)).json().is_isolating, true, 'isolated throughout');
  }
});
