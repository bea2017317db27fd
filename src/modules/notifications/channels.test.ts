/**
 * Each channel against a real receiver on a loopback port: SMTP with authentication over TLS
 * (smtps and STARTTLS, self-signed certificate trusted through the CA setting), syslog over UDP,
 * TCP and TLS in both formats, HTTPS with the HMAC checked; and the failures an operator must be
 * told apart: unreachable, bad certificate, wrong password, error answers, a receiver that hangs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { closedPort } from '../../../test/support/closed-port.js';
import { mailText, selfSigned, startSmtp, startSyslog, startWebhook, waitFor, type SelfSigned } from '../../../test/support/receivers.js';
import { EmailChannel } from './email-channel.js';
import { DeliveryError } from './delivery-error.js';
import type { NotificationPayload } from './notification.js';
import { SyslogChannel } from './syslog-channel.js';
import { WebhookChannel } from './webhook-channel.js';

const CONSOLE = 'https://vigil.example:8443';
const SECRET = 'a-webhook-secret-of-some-length';

const payload: NotificationPayload = {
  id: '0b7e6c1a-1111-4222-8333-444455556666',
  source: { kind: 'watchlist', id: 7, name: 'Shells spawned' },
  recipients: [1],
  alert: {
    unique_id: '0b7e6c1a-1111-4222-8333-444455556666', alert_type: 'watchlist.hit.query.process', status: 'Unresolved',
    created_time: '2026-11-26T05:00:00.000Z', watchlist_id: '7', watchlist_name: 'Shells spawned', feed_id: -1, feed_name: 'My Watchlists',
    report_score: 75, feed_rating: 3, sensor_criticality: 3, ioc_confidence: 0.5, alert_severity: 50.625, ioc_type: 'query',
    ioc_value: 'q=process_name%3Acmd.exe', ioc_attr: '{"highlights":[]}', md5: 'ad7b9c14083b52bc532fba5948342b98',
    process_id: '00000001-0000-0b2c-01db-5f7c3e2a1000', process_unique_id: '00000001-0000-0b2c-01db-5f7c3e2a1000-019abc', segment_id: 1764133200000,
    process_name: 'cmd.exe', process_path: 'c:\\windows\\system32\\cmd.exe', username: 'CORP\\alice', hostname: 'win-test-01', group: 'Default Group',
    sensor_id: 1, os_type: 'windows', comms_ip: '10.1.2.3', interface_ip: '10.1.2.3', modload_count: 1, filemod_count: 1, regmod_count: 1,
    netconn_count: 1, childproc_count: 1, crossproc_count: 1, total_hosts: 1,
  },
};

async function failure(promise: Promise<unknown>): Promise<DeliveryError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof DeliveryError, `expected a DeliveryError, got ${String(error)}`);
  return error;
}

describe('notification channels against real receivers', () => {
  let tls: SelfSigned;
  before(async () => {
    tls = await selfSigned();
  });

  describe('email', () => {
    let smtps: Awaited<ReturnType<typeof startSmtp>>;
    let starttls: Awaited<ReturnType<typeof startSmtp>>;
    before(async () => {
      smtps = await startSmtp({ tls, secure: true, user: 'vigil', password: 's3cret' });
      starttls = await startSmtp({ tls, user: 'vigil', password: 's3cret' });
    });
    after(async () => {
      await smtps.close();
      await starttls.close();
    });
    const channel = (port: number, options: { secure?: boolean; password?: string; ca?: string; starttls?: boolean } = {}) => new EmailChannel({
      host: '127.0.0.1', port, secure: options.secure ?? true, requireStartTls: options.starttls ?? false, user: 'vigil',
      password: options.password ?? 's3cret', from: 'vigil@example.org', shown: `smtp://127.0.0.1:${port}`,
    }, { ca: 'ca' in options ? options.ca : tls.cert, timeoutMs: 5000, consoleUrl: CONSOLE }, async (users) => users.map((user) => `user${user}@example.org`));

    it('sends the hit, query, host and console link to the recipients over TLS, with the id to dedupe on', async () => {
      await channel(smtps.port).send(payload);
      assert.equal(smtps.mails.length, 1);
      const [mail] = smtps.mails;
      assert.deepEqual(mail!.to, ['user1@example.org']);
      assert.equal(mail!.from, 'vigil@example.org');
      const raw = mailText(mail!.raw);
      assert.match(raw, /Subject: \[Vigil\] Watchlist "Shells spawned" hit cmd.exe on win-test-01/);
      assert.match(raw, /Query: q=process_name%3Acmd.exe/);
      assert.match(raw, /Host: win-test-01/);
      assert.match(raw, /https:\/\/vigil.example:8443\/#\/analyze\/00000001-0000-0b2c-01db-5f7c3e2a1000\/1764133200000/);
      assert.match(raw, /Message-ID: <0b7e6c1a-1111-4222-8333-444455556666@vigil>/i);
    });

    it('upgrades with STARTTLS when the URL requires it', async () => {
      await channel(starttls.port, { secure: false, starttls: true }).test('ann@example.org');
      assert.deepEqual(starttls.mails.map((m) => m.to), [['ann@example.org']]);
    });

    it('tells a wrong password, a certificate it cannot trust, and a server that is not there apart', async () => {
      assert.equal((await failure(channel(smtps.port, { password: 'wrong' }).test('a@example.org'))).kind, 'authentication');
      const untrusted = await failure(channel(smtps.port, { ca: undefined }).test('a@example.org'));
      assert.equal(untrusted.kind, 'certificate', untrusted.message);
      assert.equal((await failure(channel(await closedPort()).test('a@example.org'))).kind, 'unreachable');
    });

    it('gives up at once on an action that names no one with an address', async () => {
      const nobody = new EmailChannel({
        host: '127.0.0.1', port: smtps.port, secure: true, requireStartTls: false, from: 'vigil@example.org', shown: 'smtps://x',
      }, { ca: tls.cert, timeoutMs: 5000, consoleUrl: CONSOLE }, async () => []);
      const error = await failure(nobody.send(payload));
      assert.equal(error.permanent, true);
      assert.match(error.message, /email_recipients/);
    });
  });

  describe('syslog', () => {
    let udp: Awaited<ReturnType<typeof startSyslog>>;
    let tcp: Awaited<ReturnType<typeof startSyslog>>;
    let tlsListener: Awaited<ReturnType<typeof startSyslog>>;
    before(async () => {
      [udp, tcp, tlsListener] = await Promise.all([startSyslog('udp'), startSyslog('tcp'), startSyslog('tls', tls)]);
    });
    after(async () => {
      await Promise.all([udp.close(), tcp.close(), tlsListener.close()]);
    });

    it('sends RFC 5424 over UDP and TLS and RFC 3164 over TCP, naming the watchlist, host and process', async () => {
      const channel = new SyslogChannel([
        { transport: 'udp', host: '127.0.0.1', port: udp.port, format: 'rfc5424', shown: 'udp' },
        { transport: 'tcp', host: '127.0.0.1', port: tcp.port, format: 'rfc3164', shown: 'tcp' },
        { transport: 'tls', host: '127.0.0.1', port: tlsListener.port, format: 'rfc5424', shown: 'tls' },
      ], { ca: tls.cert, timeoutMs: 5000, consoleUrl: CONSOLE });
      await channel.send(payload);
      await waitFor('three messages', () => udp.messages.length + tcp.messages.length + tlsListener.messages.length === 3);
      const rfc5424 = /^<12>1 \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \S+ vigil \d+ hit \[vigil@32473 id="0b7e6c1a-1111-4222-8333-444455556666"\] (.*)$/;
      for (const message of [udp.messages[0]!, tlsListener.messages[0]!]) {
        const body = rfc5424.exec(message)?.[1];
        assert.ok(body, message);
        assert.match(body, /reason=watchlist.hit.query.process notification_id=0b7e6c1a-1111-4222-8333-444455556666 watchlist_id=7 watchlist_name="Shells spawned" host=win-test-01 /);
        assert.match(body, /process_name=cmd.exe process_guid=00000001-0000-0b2c-01db-5f7c3e2a1000 segment_id=1764133200000 /);
      }
      assert.match(tcp.messages[0]!, /^<12>[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ vigil\[\d+\]: reason=watchlist.hit.query.process .*host=win-test-01/);
    });

    it('fails on a receiver that is down or whose certificate it cannot trust', async () => {
      const down = new SyslogChannel([{ transport: 'tcp', host: '127.0.0.1', port: await closedPort(), format: 'rfc5424', shown: 'tcp://down' }],
        { timeoutMs: 5000, consoleUrl: CONSOLE });
      const refused = await failure(down.test());
      assert.equal(refused.kind, 'unreachable');
      assert.match(refused.message, /tcp:\/\/down/);
      const untrusted = new SyslogChannel([{ transport: 'tls', host: '127.0.0.1', port: tlsListener.port, format: 'rfc5424', shown: 'tls' }],
        { timeoutMs: 5000, consoleUrl: CONSOLE });
      assert.equal((await failure(untrusted.test())).kind, 'certificate');
    });
  });

  describe('HTTP POST', () => {
    let receiver: Awaited<ReturnType<typeof startWebhook>>;
    before(async () => {
      receiver = await startWebhook({ secret: SECRET, tls });
    });
    after(() => receiver.close());
    const channel = (timeoutMs = 5000) => new WebhookChannel(
      { url: `https://127.0.0.1:${receiver.port}/hooks/vigil`, secret: SECRET, shown: 'https://receiver' }, { ca: tls.cert, timeoutMs },
    );

    it('posts the alert JSON over HTTPS, signed with the shared secret and named by its id', async () => {
      receiver.mode = 'ok';
      await channel().send(payload);
      assert.equal(receiver.posts.length, 1);
      const [post] = receiver.posts;
      assert.equal(post!.signatureValid, true);
      assert.equal(post!.id, payload.id);
      assert.deepEqual(JSON.parse(post!.body), payload.alert);
    });

    it('fails on an error answer, and on a receiver that does not answer within the timeout', async () => {
      receiver.mode = 'error';
      const answered = await failure(channel().send(payload));
      assert.match(answered.message, /HTTP 503/);
      receiver.mode = 'hang';
      const started = Date.now();
      assert.equal((await failure(channel(300).send(payload))).kind, 'timeout');
      assert.ok(Date.now() - started < 3000);
      receiver.mode = 'ok';
    });

    it('fails on a receiver whose certificate it cannot trust', async () => {
      const untrusted = new WebhookChannel({ url: `https://127.0.0.1:${receiver.port}/`, secret: SECRET, shown: 'x' }, { timeoutMs: 5000 });
      assert.equal((await failure(untrusted.test())).kind, 'certificate');
    });
  });
});
