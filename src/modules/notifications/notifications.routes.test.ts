/**
 * Watchlist actions that really deliver, end to end: events arrive through the sensor protocol,
 * the matcher hits the watchlist, and its email, syslog and HTTP POST actions reach real receivers
 * (SMTP over TLS with a password, syslog over TCP and UDP, an HTTP receiver checking the HMAC).
 * A receiver that hangs leaves ingest answering; the channel state and /api/info say what
 * failed; the test route tells a wrong password, a bad certificate and an unreachable host apart.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';
import { closedPort } from '../../../test/support/closed-port.js';
import { mailText, selfSigned, startSmtp, startSyslog, startWebhook, waitFor, type SelfSigned } from '../../../test/support/receivers.js';
import { processEvents, registerSensor, uploadEvents, type TestSensor } from '../../../test/support/sensors.js';

const SECRET = 'a-webhook-secret-of-some-length';

describe('notifications of watchlist hits', () => {
  let tls: SelfSigned;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let tcp: Awaited<ReturnType<typeof startSyslog>>;
  let udp: Awaited<ReturnType<typeof startSyslog>>;
  let hook: Awaited<ReturnType<typeof startWebhook>>;
  let test: TestApp;
  let sensor: TestSensor;
  let sequence = 0;
  let pid = 4000;
  before(async () => {
    tls = await selfSigned();
    [smtp, tcp, udp] = await Promise.all([startSmtp({ tls, secure: true, user: 'vigil', password: 's3cret' }), startSyslog('tcp'), startSyslog('udp')]);
    hook = await startWebhook({ secret: SECRET });
    test = await startTestApp({
      detectionCoalesceMs: 50, publicUrl: 'https://vigil.example:8443',
      smtpUrl: `smtps://vigil:s3cret@127.0.0.1:${smtp.port}`, smtpFrom: 'vigil@example.org',
      syslogUrl: `tcp://127.0.0.1:${tcp.port}?format=rfc3164,udp://127.0.0.1:${udp.port}`,
      webhookUrl: `http://127.0.0.1:${hook.port}/hook`, webhookSecret: SECRET, notificationCaFile: tls.caFile,
      notificationTimeoutSeconds: 1, notificationRetrySeconds: 0.2,
    });
    sensor = await registerSensor(test, { computer_name: 'NOTIFY-HOST' });
  });
  after(async () => {
    await test.close();
    await Promise.all([smtp.close(), tcp.close(), udp.close(), hook.close()]);
  });

  const api = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object, token = test.adminToken) => {
    const response = await test.app.inject({ method, url, headers: as(token), ...(payload ? { payload } : {}) });
    assert.equal(response.statusCode, 200, `${method} ${url}: ${response.body}`);
    return response.json();
  };
  const channel = async (name: string) => (await api('GET', '/api/v1/notifications/channels')).find((c: { channel: string }) => c.channel === name);
  const upload = () => uploadEvents(test, sensor, ++sequence, processEvents(++pid, Date.now()));

  it('answers only global administrators', async () => {
    const analyst = await createUser(test, { username: 'analyst' });
    for (const [method, url] of [['GET', '/api/v1/notifications/channels'], ['POST', '/api/v1/notifications/channels/syslog/test']] as const) {
      assert.equal((await test.app.inject({ method, url })).statusCode, 401);
      assert.equal((await test.app.inject({ method, url, headers: as(analyst) })).statusCode, 403);
    }
  });

  it('emails the subscribers, writes syslog and posts the signed alert when the watchlist hits, under one id', async () => {
    await api('POST', '/api/user', { username: 'ann', email: 'ann@example.org', first_name: 'Ann', last_name: 'Lyst' });
    const { id: watchlistId } = await api('POST', '/api/v1/watchlist', { name: 'Shells', search_query: 'q=process_name%3Acmd.exe' });
    await api('POST', `/api/v1/watchlist/${watchlistId}/action`, { action_type: 0, action_data: JSON.stringify({ email_recipients: ['ann'] }) });
    await api('PUT', `/api/v1/watchlist/${watchlistId}/action_type/1`, { enabled: true });
    await api('PUT', `/api/v1/watchlist/${watchlistId}/action_type/2`, { enabled: true });
    await test.container.detectionMatcher.idle();
    assert.equal((await upload()).statusCode, 200);

    await waitFor('the mail, the syslog messages and the post', () => smtp.mails.length === 1 && tcp.messages.length === 1 && udp.messages.length === 1 && hook.posts.length === 1);
    const [post] = hook.posts;
    assert.equal(post!.signatureValid, true);
    const alert = JSON.parse(post!.body);
    assert.equal(post!.id, alert.unique_id);
    assert.equal(alert.watchlist_name, 'Shells');
    assert.equal(alert.hostname, 'notify-host');
    assert.equal(alert.process_name, 'cmd.exe');
    assert.deepEqual(smtp.mails[0]!.to, ['ann@example.org']);
    const mail = mailText(smtp.mails[0]!.raw);
    assert.match(mail, /Watchlist "Shells" hit cmd.exe on notify-host/);
    assert.match(mail, /Query: q=process_name%3Acmd.exe/);
    assert.ok(mail.includes(`https://vigil.example:8443/#/analyze/${alert.process_id}/${alert.segment_id}`), mail);
    assert.ok(mail.includes(`<${alert.unique_id}@vigil>`));
    assert.match(tcp.messages[0]!, new RegExp(`^<12>.* vigil\\[\\d+\\]: reason=watchlist.hit.query.process notification_id=${alert.unique_id} watchlist_id=${watchlistId} watchlist_name=Shells host=notify-host .*process_name=cmd.exe`));
    assert.match(udp.messages[0]!, new RegExp(`^<12>1 .* \\[vigil@32473 id="${alert.unique_id}"\\] reason=`));

    // A receiver has a message before its sender has recorded the answer: wait for every channel's count.
    await waitFor('the channel counts', async () => (await Promise.all(['email', 'syslog', 'http_post'].map(channel))).every((state) => state.sent === 1));
    for (const name of ['email', 'syslog', 'http_post']) {
      const state = await channel(name);
      assert.deepEqual([state.configured, state.sent, state.failed, state.failing], [true, 1, 0, false], name);
      assert.match(state.last_success_time, /^\d{4}-\d\d-\d\dT/);
    }
    assert.equal((await channel('syslog')).target, `tcp://127.0.0.1:${tcp.port}?format=rfc3164, udp://127.0.0.1:${udp.port}`);
    assert.equal((await channel('email')).target, `smtps://vigil:***@127.0.0.1:${smtp.port}`);
    assert.equal((await api('GET', '/api/info')).notification_warning, null);
  });

  it('keeps ingest answering while the HTTP receiver hangs, warns, and delivers once it answers again', async () => {
    hook.mode = 'hang';
    const before = hook.posts.length;
    for (let i = 0; i < 5; i++) {
      const started = Date.now();
      assert.equal((await upload()).statusCode, 200);
      // A send waits up to its 1 s timeout: an upload that waited on it would take that long.
      assert.ok(Date.now() - started < 1000, `upload ${i} took ${Date.now() - started} ms`);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    await waitFor('the post retrying', async () => (await channel('http_post')).retrying > 0);
    const state = await channel('http_post');
    assert.equal(state.failing, true);
    assert.match(state.last_error, /timed out/);
    assert.match((await api('GET', '/api/info')).notification_warning, /http_post .*timed out/);
    await waitFor('the other channels going on', () => smtp.mails.length === 6 && tcp.messages.length === 6);

    hook.mode = 'ok';
    await waitFor('every post', () => hook.posts.length === before + 5, 20_000);
    const ids = hook.posts.map((p) => p.id);
    assert.equal(new Set(ids).size, ids.length, 'once per id');
    await waitFor('the warning gone', async () => (await api('GET', '/api/info')).notification_warning === null);
  });

  it('sends a test message through each channel, and answers why one fails', async () => {
    assert.deepEqual(await api('POST', '/api/v1/notifications/channels/email/test?to=ops%40example.org'),
      { result: 'success', channel: 'email', target: `smtps://vigil:***@127.0.0.1:${smtp.port}` });
    assert.deepEqual(smtp.mails.at(-1)!.to, ['ops@example.org']);
    await api('POST', '/api/v1/notifications/channels/syslog/test');
    await waitFor('the syslog tests', () => tcp.messages.some((m) => m.includes('test notification')) && udp.messages.some((m) => m.includes('test notification')));
    hook.mode = 'error';
    const refused = await test.app.inject({ method: 'POST', url: '/api/v1/notifications/channels/http_post/test', headers: as(test.adminToken) });
    hook.mode = 'ok';
    assert.equal(refused.statusCode, 400);
    assert.equal(refused.json().reason, 'channel_rejected');
    assert.match(refused.json().message, /answered HTTP 503/);
    const unknown = await test.app.inject({ method: 'POST', url: '/api/v1/notifications/channels/pager/test', headers: as(test.adminToken) });
    assert.equal(unknown.statusCode, 400);
  });
});

describe('notification channels that are wrongly configured', () => {
  let tls: SelfSigned;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let syslog: Awaited<ReturnType<typeof startSyslog>>;
  let test: TestApp;
  before(async () => {
    tls = await selfSigned();
    smtp = await startSmtp({ tls, secure: true, user: 'vigil', password: 's3cret' });
    // A certificate of its own, which the CA setting (the SMTP server's) does not vouch for.
    syslog = await startSyslog('tls', await selfSigned());
    test = await startTestApp({
      smtpUrl: `smtps://vigil:wrong@127.0.0.1:${smtp.port}`, notificationCaFile: tls.caFile,
      syslogUrl: `tls://127.0.0.1:${syslog.port}`,
      webhookUrl: `http://127.0.0.1:${await closedPort()}/hook`, webhookSecret: SECRET,
    });
  });
  after(async () => {
    await test.close();
    await Promise.all([smtp.close(), syslog.close()]);
  });

  const tested = async (channel: string) => {
    const response = await test.app.inject({ method: 'POST', url: `/api/v1/notifications/channels/${channel}/test?to=ops%40example.org`, headers: as(test.adminToken) });
    return { status: response.statusCode, ...response.json() };
  };

  it('tells a wrong password, a bad certificate and an unreachable host apart', async () => {
    const email = await tested('email');
    assert.deepEqual([email.status, email.reason], [400, 'channel_authentication']);
    assert.match(email.message, /authentication refused/);
    const hook = await tested('http_post');
    assert.deepEqual([hook.status, hook.reason], [400, 'channel_unreachable']);
    assert.match(hook.message, /ECONNREFUSED/);
    const untrusted = await tested('syslog');
    assert.deepEqual([untrusted.status, untrusted.reason], [400, 'channel_certificate'], untrusted.message);
    assert.match(untrusted.message, /self-signed certificate/);
  });
});

describe('notification channels left unconfigured', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp();
  });
  after(() => test.close());

  it('shows them unconfigured, and a test names the setting to give', async () => {
    const states = (await test.app.inject({ url: '/api/v1/notifications/channels', headers: as(test.adminToken) })).json();
    assert.deepEqual(states.map((s: { channel: string; configured: boolean }) => [s.channel, s.configured]), [['email', false], ['syslog', false], ['http_post', false]]);
    const response = await test.app.inject({ method: 'POST', url: '/api/v1/notifications/channels/http_post/test', headers: as(test.adminToken) });
    assert.equal(response.statusCode, 412);
    assert.equal(response.json().reason, 'channel_not_configured');
    assert.match(response.json().message, /VIGIL_WEBHOOK_URL/);
  });
});
