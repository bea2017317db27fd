/**
 * The forwarder through its API, delivering to real receivers on loopback: a Splunk HEC that is
 * down for a while, a TLS syslog listener, and the checks that refuse bad outputs.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';
import { closedPort } from '../../../test/support/closed-port.js';
import {
  eventually, startHecReceiver, startSyslogListener, testCertificate, type HecReceiver,
} from '../../../test/support/forward-receivers.js';
import { storedSegments } from '../../../test/support/processes.js';
import { processEvents, registerSensor, uploadEvents, type TestSensor } from '../../../test/support/sensors.js';

const FAST = { forwarderPollMs: 50, forwarderCommitHorizonMs: 0, forwarderBatchSize: 1 };
const TOKEN = '8a3c7e2f-hec-token';

describe('forwarder outputs', () => {
  let test: TestApp;
  let sensor: TestSensor;
  let sequence = 0;

  before(async () => {
    test = await startTestApp(FAST);
    sensor = await registerSensor(test);
  });
  after(() => test.close());

  const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, token = test.adminToken) =>
    test.app.inject({ method, url, headers: as(token), ...(payload && { payload }) });

  async function ingestProcess(pid: number): Promise<void> {
    const response = await uploadEvents(test, sensor, ++sequence, processEvents(pid, Date.now()));
    assert.equal(response.statusCode, 200, response.body);
    await test.container.services.ingest.flush();
  }

  it('is for global administrators only', async () => {
    const analyst = await createUser(test, { username: 'fwd-analyst' });
    assert.equal((await test.app.inject({ url: '/api/v1/forwarder/outputs' })).statusCode, 401);
    assert.equal((await api('GET', '/api/v1/forwarder/outputs', undefined, analyst)).statusCode, 403);
    const created = await api('POST', '/api/v1/forwarder/outputs', { name: 'x', type: 'file', path: 'x.json', events_alert: true }, analyst);
    assert.equal(created.statusCode, 403);
  });

  it('refuses a bad output with a 4xx that names the problem', async () => {
    const refused = async (body: object, status: number, words: RegExp) => {
      const response = await api('POST', '/api/v1/forwarder/outputs', body);
      assert.equal(response.statusCode, status, response.body);
      assert.match((response.json() as { message: string }).message, words);
    };
    await refused({ name: 'out', type: 'file', path: '/etc/cron.d/x', events_alert: true }, 400, /writes inside .*forwarderFileDir/);
    await refused({ name: 'up', type: 'file', path: '../../x.json', events_alert: true }, 400, /writes inside/);
    await refused({ name: 'udp', type: 'syslog', url: 'udp://127.0.0.1:514', events_alert: true }, 400, /udp: is not offered/);
    await refused({ name: 'noport', type: 'syslog', url: 'tcp://127.0.0.1', events_alert: true }, 400, /needs a port/);
    await refused({ name: 'bad-url', type: 'http', url: 'not a url', events_alert: true }, 400, /not a URL/);
    await refused({ name: 'bad-ca', type: 'http', url: 'https://127.0.0.1:1/', ca_cert: 'junk', events_alert: true }, 400, /PEM/);
    await refused({ name: 'nothing', type: 'file', path: 'n.json' }, 400, /forwards nothing/);
    await refused({ name: 'raw', type: 'file', path: 'n.json', events_raw_sensor: ['keystrokes'] }, 400, /unknown event type "keystrokes"/);
    const kept = await api('POST', '/api/v1/forwarder/outputs', { name: 'dup', type: 'file', path: 'dup.json', events_alert: true, enabled: false });
    assert.equal(kept.statusCode, 200, kept.body);
    await refused({ name: 'dup', type: 'file', path: 'dup2.json', events_alert: true }, 409, /exists already/);
    assert.equal((await api('DELETE', `/api/v1/forwarder/outputs/${(kept.json() as { id: number }).id}`)).statusCode, 200);
    assert.equal((await api('GET', '/api/v1/forwarder/outputs/999999')).statusCode, 404);
  });

  it('answers a test that cannot reach the receiver with a 400 naming the receiver\'s error', async () => {
    const down = await api('POST', '/api/v1/forwarder/outputs/test', { name: 't', type: 'syslog', url: `tcp://127.0.0.1:${await closedPort()}`, events_alert: true });
    assert.equal(down.statusCode, 400, down.body);
    assert.match((down.json() as { message: string }).message, /ECONNREFUSED/);
    const hec = await startHecReceiver(TOKEN);
    try {
      const wrong = await api('POST', '/api/v1/forwarder/outputs/test', { name: 't', type: 'http', url: hec.url, splunk_token: 'wrong', events_alert: true });
      assert.equal(wrong.statusCode, 400, wrong.body);
      assert.match((wrong.json() as { message: string }).message, /answered 401/);
      const right = await api('POST', '/api/v1/forwarder/outputs/test', { name: 't', type: 'http', url: hec.url, splunk_token: TOKEN, events_alert: true });
      assert.equal(right.statusCode, 200, right.body);
      assert.equal(hec.events[0]!.type, 'vigil.forwarder.test');
    } finally {
      await hec.close();
    }
  });

  it('delivers raw events to a Splunk HEC that was down, each once, and reports the failure while it lasts', async () => {
    const hec: HecReceiver = await startHecReceiver(TOKEN);
    hec.failWith = 503;
    try {
      const created = await api('POST', '/api/v1/forwarder/outputs', {
        name: 'splunk', type: 'http', url: hec.url, splunk_token: TOKEN, events_raw_sensor: ['ALL'],
      });
      assert.equal(created.statusCode, 200, created.body);
      const output = created.json() as { id: number; splunk_token: string };
      assert.equal(output.splunk_token, '********', 'the token is never shown');
      await ingestProcess(4100);
      await ingestProcess(4200);
      await eventually(async () => {
        const status = (await api('GET', `/api/v1/forwarder/outputs/${output.id}/status`)).json() as { healthy: boolean };
        return !status.healthy;
      }, 'the failing receiver to show in the status');
      const failing = (await api('GET', `/api/v1/forwarder/outputs/${output.id}/status`)).json() as { sources: { last_error: string; lag_seconds: number }[] };
      assert.match(failing.sources[0]!.last_error, /answered 503/);
      assert.equal(hec.events.length, 0);

      hec.failWith = undefined;
      await eventually(() => hec.events.length >= 16, '16 events at the receiver');
      await ingestProcess(4300);
      await eventually(() => hec.events.length >= 24, '24 events at the receiver');
      const keys = hec.events.map((e) => `${String(e.process_guid)} ${String(e.type)} ${String(e.timestamp)}`);
      assert.equal(new Set(keys).size, keys.length, 'no event twice');
      assert.equal(keys.length, 24);
      assert.deepEqual(new Set(hec.events.map((e) => e.type)), new Set([
        'ingress.event.procstart', 'ingress.event.filemod', 'ingress.event.regmod', 'ingress.event.netconn',
        'ingress.event.moduleload', 'ingress.event.childproc', 'ingress.event.crossprocopen', 'ingress.event.procend',
      ]));
      const netconn = hec.events.find((e) => e.type === 'ingress.event.netconn')!;
      assert.equal(netconn.remote_ip, '93.184.216.34');
      assert.equal(netconn.remote_port, 443);
      assert.equal(netconn.sensor_id, sensor.id);
      assert.equal(hec.envelopes[0]!.sourcetype, 'bit9:carbonblack:json');
      assert.deepEqual(new Set(hec.encodings), new Set(['gzip']), 'HEC bodies travel gzip-compressed');

      // The cursor moves once the receiver has answered, a moment after the events arrived.
      await eventually(async () => {
        const healthy = (await api('GET', `/api/v1/forwarder/outputs/${output.id}/status`)).json() as { healthy: boolean; sources: { forwarded: number }[] };
        return healthy.healthy && healthy.sources[0]!.forwarded === 24;
      }, 'the status to count the 24 events delivered');
      assert.equal((await api('DELETE', `/api/v1/forwarder/outputs/${output.id}`)).statusCode, 200);
    } finally {
      await hec.close();
    }
  });

  it('sends LEEF over TLS syslog to a receiver whose certificate it was given', async () => {
    const material = await testCertificate();
    const listener = await startSyslogListener(material);
    try {
      const body = { name: 'qradar', type: 'syslog', url: listener.url, format: 'leef', ca_cert: material.cert, events_raw_sensor: ['netconn'] };
      assert.equal((await api('POST', '/api/v1/forwarder/outputs/test', { ...body, ca_cert: undefined })).statusCode, 400, 'unknown CA refused');
      const created = await api('POST', '/api/v1/forwarder/outputs', body);
      assert.equal(created.statusCode, 200, created.body);
      await ingestProcess(5100);
      await eventually(() => listener.lines.length >= 1, 'a syslog line');
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(listener.lines.length, 1, 'only the netconn');
      const line = listener.lines[0]!;
      assert.match(line, /^<14>\S+ \S+ cb-event-forwarder\[\d+\]: LEEF:1\.0\|CB\|CB\|[^|]+\|ingress\.event\.netconn\|/);
      assert.match(line, /\tdst=93\.184\.216\.34\t/);
      assert.match(line, /\tdstPort=443\t/);
      assert.match(line, /\tsrc=10\.1\.2\.3\t/);
      await api('DELETE', `/api/v1/forwarder/outputs/${(created.json() as { id: number }).id}`);
    } finally {
      await listener.close();
    }
  });
  it('forwards watchlist hits and their alerts, with the process document as cb-event-forwarder wrote it', async () => {
    const path = join(test.config.dataDir, 'forwarder', 'hits', 'hits.json');
    const created = await api('POST', '/api/v1/forwarder/outputs', { name: 'hits', type: 'file', path: 'hits/hits.json', events_watchlist: true, events_alert: true });
    assert.equal(created.statusCode, 200, created.body);
    const watchlist = await api('POST', '/api/v1/watchlist', { name: 'Whoami', search_query: 'q=process_name:cmd.exe', index_type: 'events' });
    assert.equal(watchlist.statusCode, 200, watchlist.body);
    const { id } = watchlist.json() as { id: number };
    const alerting = await api('PUT', `/api/v1/watchlist/${id}/action_type/3`, { enabled: true });
    assert.equal(alerting.statusCode, 200, alerting.body);
    await ingestProcess(7100);
    // The detection sink records the hit as the matcher would: this test is about forwarding it.
    const segments = (await storedSegments(test, sensor.id, 7100)).map((segment) => segment.segmentRow);
    await test.container.services.detection.watchlistRan({ watchlistId: id, ranAtMs: Date.now(), segments });
    const lines = () => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>) : []);
    await eventually(() => lines().some((l) => l.type === 'watchlist.hit.process') && lines().some((l) => String(l.type).startsWith('alert.')), 'a watchlist hit and its alert');
    const hit = lines().find((l) => l.type === 'watchlist.hit.process')!;
    assert.equal(hit.watchlist_name, 'Whoami');
    const doc = (hit.docs as Record<string, unknown>[])[0]!;
    assert.equal(doc.process_name, 'cmd.exe');
    assert.equal(doc.process_pid, 7100);
    assert.equal(doc.sensor_id, sensor.id);
    assert.equal(doc.process_md5, 'AD7B9C14083B52BC532FBA5948342B98');
    const alert = lines().find((l) => String(l.type).startsWith('alert.'))!;
    assert.equal(alert.type, 'alert.watchlist.hit.query.process');
    assert.equal(alert.watchlist_name, 'Whoami');
    assert.equal(alert.process_name, 'cmd.exe');
    await api('DELETE', `/api/v1/forwarder/outputs/${(created.json() as { id: number }).id}`);
  });
});
