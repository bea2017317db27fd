/** The contract of OutboxStore, run against every dialect (outbox.store.test.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import { enqueueNotification, SqlOutboxStore } from './outbox.store.js';
import type { ChannelName } from './channel-settings.js';

const T0 = Date.parse('2026-11-26T05:00:00Z');

async function queue(db: SqlDatabase, id: string, channel: ChannelName, createdMs = T0): Promise<void> {
  await db.transaction((tx) => enqueueNotification(tx, { notificationId: id, channel, payload: `{"id":"${id}"}`, createdMs }));
}

export function outboxStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('keeps one entry per notification and channel, and hands out the due ones oldest first', async () => {
    const db = await fresh();
    const store = new SqlOutboxStore(db);
    await queue(db, 'b', 'syslog', T0 + 1);
    await queue(db, 'a', 'email');
    await queue(db, 'a', 'syslog');
    await queue(db, 'a', 'email', T0 + 5);
    assert.deepEqual((await store.due(T0 + 1, 10)).map((e) => [e.notificationId, e.channel, e.attempts]),
      [['a', 'email', 0], ['a', 'syslog', 0], ['b', 'syslog', 0]]);
    assert.deepEqual((await store.due(T0, 10)).map((e) => e.notificationId), ['a', 'a'], 'b is not due before it was made');
    assert.equal((await store.due(T0 + 1, 1)).length, 1);
    assert.deepEqual((await store.due(T0 + 1, 10, ['syslog'])).map((e) => e.channel), ['email']);
    assert.equal((await store.due(T0 + 1, 10))[0]!.payload, '{"id":"a"}');
  });

  it('retries an entry when it is due again, and leaves sent and failed ones alone', async () => {
    const db = await fresh();
    const store = new SqlOutboxStore(db);
    for (const id of ['a', 'b', 'c']) await queue(db, id, 'http_post');
    const [a, b, c] = await store.due(T0, 10);
    await store.markRetry(a!.id, 'connection refused', T0 + 1, T0 + 100);
    await store.markSent(b!.id, T0 + 2);
    await store.markFailed(c!.id, 'HTTP 500', T0 + 3);
    assert.deepEqual(await store.due(T0 + 99, 10), []);
    assert.deepEqual((await store.due(T0 + 100, 10)).map((e) => [e.notificationId, e.attempts]), [['a', 1]]);
    assert.deepEqual(await store.channelCounts(), [{
      channel: 'http_post', pending: 0, retrying: 1, sent: 1, failed: 1, lastError: 'HTTP 500', lastErrorMs: T0 + 3, lastSuccessMs: T0 + 2,
    }]);
  });

  it('puts a channel\'s failed entries back with a new round of tries, or deletes them, leaving other channels alone', async () => {
    const db = await fresh();
    const store = new SqlOutboxStore(db);
    for (const id of ['a', 'b']) await queue(db, id, 'http_post');
    await queue(db, 'c', 'syslog');
    for (const entry of await store.due(T0, 10)) await store.markFailed(entry.id, 'HTTP 500', T0 + 1);
    assert.equal(await store.requeueFailed('http_post', T0 + 50), 2);
    assert.deepEqual(await store.due(T0 + 49, 10), []);
    assert.deepEqual((await store.due(T0 + 50, 10)).map((e) => [e.notificationId, e.attempts]), [['a', 0], ['b', 0]]);
    assert.equal(await store.requeueFailed('http_post', T0 + 60), 0, 'nothing failed is left');
    assert.equal(await store.deleteFailed('http_post'), 0, 'pending entries are not deleted');
    assert.equal(await store.deleteFailed('syslog'), 1);
    assert.deepEqual((await store.channelCounts()).map((c) => [c.channel, c.pending, c.failed]), [['http_post', 2, 0]]);
  });

  it('counts each channel apart, and forgets sent entries past their time', async () => {
    const db = await fresh();
    const store = new SqlOutboxStore(db);
    await queue(db, 'a', 'email');
    await queue(db, 'a', 'syslog');
    const syslog = (await store.due(T0, 10)).find((e) => e.channel === 'syslog')!;
    await store.markSent(syslog.id, T0 + 10);
    assert.deepEqual((await store.channelCounts()).map((c) => [c.channel, c.pending, c.sent, c.lastError]), [['email', 1, 0, null], ['syslog', 0, 1, null]]);
    assert.equal(await store.pruneSent(T0 + 10), 0);
    assert.equal(await store.pruneSent(T0 + 11), 1);
    assert.deepEqual((await store.channelCounts()).map((c) => c.channel), ['email']);
  });

  it('finds the email addresses of users by id or username, skipping those without one', async () => {
    const db = await fresh();
    const store = new SqlOutboxStore(db);
    const user = async (name: string, email: string) => (await db.get<{ id: number }>(
      `INSERT INTO users (username, first_name, last_name, email, global_admin, password_hash, token_salt, token_hash, created_at)
       VALUES (?, '', '', ?, 0, '', '', ?, '2026-11-26') RETURNING id`, [name, email, name],
    ))!.id;
    const ann = await user('ann', 'ann@example.org');
    const bob = await user('bob', '');
    assert.deepEqual(await store.recipientEmails([ann, bob, 999]), ['ann@example.org']);
    assert.deepEqual(await store.recipientEmails(['bob', 'ann']), ['ann@example.org']);
    assert.deepEqual(await store.recipientEmails([]), []);
  });
}
