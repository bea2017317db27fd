/**
 * The delivery worker over a real outbox (SQLite file) and real receivers: one that is down for a
 * while and comes back, one that answers errors, one that hangs, a channel left unconfigured, and
 * two servers delivering from one outbox under the job's lease.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { closedPort } from '../../../test/support/closed-port.js';
import { dialects } from '../../../test/support/dialects.js';
import { startSyslog, startWebhook, waitFor } from '../../../test/support/receivers.js';
import type { SqlDatabase } from '../../db/database.js';
import { SqlJobLeasesStore } from '../../jobs/job-leases.store.js';
import { LeasedJobs } from '../../jobs/leased-jobs.js';
import type { ChannelName } from './channel-settings.js';
import type { ChannelSender } from './channel-sender.js';
import { NotificationDelivery } from './delivery-worker.js';
import { enqueueNotification, SqlOutboxStore } from './outbox.store.js';
import { SyslogChannel } from './syslog-channel.js';
import { WebhookChannel } from './webhook-channel.js';

const SECRET = 'a-webhook-secret-of-some-length';
const CONSOLE = 'https://vigil.example';

async function queue(db: SqlDatabase, ids: string[], channel: ChannelName): Promise<void> {
  for (const id of ids) {
    const payload = { id, source: { kind: 'watchlist', id: 1, name: 'w' }, alert: { unique_id: id, hostname: 'h', process_name: 'p' } };
    await db.transaction((tx) => enqueueNotification(tx, { notificationId: id, channel, payload: JSON.stringify(payload), createdMs: Date.now() }));
  }
}

const webhook = (port: number, timeoutMs = 2000) => new WebhookChannel({ url: `http://127.0.0.1:${port}/hook`, secret: SECRET, shown: `http://127.0.0.1:${port}` }, { timeoutMs });
const counts = async (store: SqlOutboxStore, channel: ChannelName) => (await store.channelCounts()).find((c) => c.channel === channel);

describe('notification delivery', () => {
  let db: SqlDatabase;
  let store: SqlOutboxStore;
  before(async () => {
    db = await dialects.find((d) => d.name === 'sqlite')!.freshDatabase();
    store = new SqlOutboxStore(db);
  });
  after(() => db.close());

  it('delivers everything, once per id, to a receiver that was down for a while and came back', async () => {
    const port = await closedPort();
    const ids = ['down-1', 'down-2', 'down-3', 'down-4', 'down-5'];
    await queue(db, ids, 'http_post');
    const delivery = new NotificationDelivery(store, new Map([['http_post', webhook(port)]]), { maxAttempts: 50, retryBaseMs: 50 });
    for (let i = 0; i < 3; i++) {
      await delivery.deliverDue();
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    const whileDown = (await counts(store, 'http_post'))!;
    assert.equal(whileDown.sent, 0);
    assert.ok(whileDown.retrying >= 1, JSON.stringify(whileDown));
    assert.match(whileDown.lastError!, /ECONNREFUSED/);
    const receiver = await startWebhook({ secret: SECRET, port });
    try {
      await waitFor('every notification sent', async () => {
        await delivery.deliverDue();
        return (await counts(store, 'http_post'))!.sent === ids.length;
      });
      assert.deepEqual(receiver.posts.map((p) => p.id).sort(), ids, 'each id once');
      assert.ok(receiver.posts.every((p) => p.signatureValid));
    } finally {
      await receiver.close();
    }
  });

  it('retries a receiver that answers errors, then gives up with its answer as the reason', async () => {
    const receiver = await startWebhook({ secret: SECRET });
    receiver.mode = 'error';
    try {
      await db.run('DELETE FROM notification_outbox');
      await queue(db, ['err-1'], 'http_post');
      const delivery = new NotificationDelivery(store, new Map([['http_post', webhook(receiver.port)]]), { maxAttempts: 3, retryBaseMs: 20 });
      await waitFor('the notification failed', async () => {
        await delivery.deliverDue();
        return (await counts(store, 'http_post'))!.failed === 1;
      });
      assert.equal(receiver.requests, 3, 'tried maxAttempts times');
      assert.match((await counts(store, 'http_post'))!.lastError!, /answered HTTP 503/);
      await delivery.deliverDue();
      assert.equal(receiver.requests, 3, 'a failed notification is not tried again');
    } finally {
      await receiver.close();
    }
  });

  it('spends one timeout per run on a receiver that hangs, and still delivers through the other channels', async () => {
    const receiver = await startWebhook({ secret: SECRET });
    const syslog = await startSyslog('udp');
    receiver.mode = 'hang';
    try {
      await db.run('DELETE FROM notification_outbox');
      await queue(db, ['slow-1', 'slow-2', 'slow-3'], 'http_post');
      await queue(db, ['slow-1'], 'syslog');
      const senders = new Map<ChannelName, ChannelSender>([
        ['http_post', webhook(receiver.port, 300)],
        ['syslog', new SyslogChannel([{ transport: 'udp', host: '127.0.0.1', port: syslog.port, format: 'rfc5424', shown: 'udp' }], { timeoutMs: 1000, consoleUrl: CONSOLE })],
      ]);
      const delivery = new NotificationDelivery(store, senders, { maxAttempts: 5, retryBaseMs: 60_000, concurrency: 1 });
      const started = Date.now();
      await delivery.deliverDue();
      assert.ok(Date.now() - started < 1500, `one run took ${Date.now() - started} ms`);
      assert.equal(receiver.requests, 1);
      await waitFor('the syslog message', () => syslog.messages.length === 1);
      assert.deepEqual((await store.channelCounts()).map((c) => [c.channel, c.pending, c.retrying, c.sent]), [['http_post', 2, 1, 0], ['syslog', 0, 0, 1]]);
      assert.match((await counts(store, 'http_post'))!.lastError!, /timed out/);
    } finally {
      await receiver.close();
      await syslog.close();
    }
  });

  it('sends each notification from one server only when two deliver from the same outbox', async () => {
    const receiver = await startWebhook({ secret: SECRET });
    const servers = ['a', 'b'].map((holder) => new LeasedJobs(new SqlJobLeasesStore(db), { leaseMs: 5000, holder }));
    try {
      await db.run('DELETE FROM notification_outbox');
      const ids = Array.from({ length: 20 }, (_, i) => `pair-${String(i).padStart(2, '0')}`);
      await queue(db, ids, 'http_post');
      for (const server of servers) {
        const delivery = new NotificationDelivery(store, new Map([['http_post', webhook(receiver.port)]]), { maxAttempts: 5, retryBaseMs: 50, batch: 5 });
        server.every('notification-delivery', 100, () => delivery.deliverDue());
      }
      await waitFor('every notification sent', async () => (await counts(store, 'http_post'))!.sent === ids.length);
      assert.deepEqual(receiver.posts.map((p) => p.id).sort(), ids, 'each once');
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
      await receiver.close();
    }
  });

  it('fails the notifications of a channel the settings do not configure, saying so', async () => {
    await db.run('DELETE FROM notification_outbox');
    await queue(db, ['lone-1'], 'email');
    await new NotificationDelivery(store, new Map(), { maxAttempts: 5, retryBaseMs: 10 }).deliverDue();
    const email = (await counts(store, 'email'))!;
    assert.equal(email.failed, 1);
    assert.match(email.lastError!, /email channel is not configured/);
  });
});
