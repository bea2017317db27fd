/**
 * Notifications given up after their tries can be sent again once the receiver is fixed, or
 * deleted: an administrator's way out of a channel that was down longer than its retries.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';
import { startWebhook, waitFor } from '../../../test/support/receivers.js';
import { processEvents, registerSensor, uploadEvents, type TestSensor } from '../../../test/support/sensors.js';

const SECRET = 'a-webhook-secret-of-some-length';

describe('failed notifications', () => {
  let hook: Awaited<ReturnType<typeof startWebhook>>;
  let test: TestApp;
  let sensor: TestSensor;
  let sequence = 0;
  before(async () => {
    hook = await startWebhook({ secret: SECRET });
    test = await startTestApp({
      detectionCoalesceMs: 50, webhookUrl: `http://127.0.0.1:${hook.port}/hook`, webhookSecret: SECRET,
      notificationTimeoutSeconds: 1, notificationRetrySeconds: 0.1, notificationMaxAttempts: 2,
    });
    sensor = await registerSensor(test, { computer_name: 'RETRY-HOST' });
  });
  after(async () => {
    await test.close();
    await hook.close();
  });

  const call = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) => {
    const response = await test.app.inject({ method, url, headers: as(test.adminToken), ...(payload ? { payload } : {}) });
    assert.equal(response.statusCode, 200, `${method} ${url}: ${response.body}`);
    return response.json();
  };
  const posts = async () => (await call('GET', '/api/v1/notifications/channels')).find((c: { channel: string }) => c.channel === 'http_post');
  const hitTwice = async (pid: number) => {
    for (const at of [Date.now(), Date.now() + 1]) {
      assert.equal((await uploadEvents(test, sensor, ++sequence, processEvents(pid++, at))).statusCode, 200);
    }
  };

  it('answers only global administrators', async () => {
    const analyst = await createUser(test, { username: 'analyst' });
    for (const [method, url] of [['POST', '/api/v1/notifications/channels/http_post/retry'], ['DELETE', '/api/v1/notifications/channels/http_post/failed']] as const) {
      assert.equal((await test.app.inject({ method, url })).statusCode, 401);
      assert.equal((await test.app.inject({ method, url, headers: as(analyst) })).statusCode, 403);
    }
    assert.equal((await test.app.inject({ method: 'POST', url: '/api/v1/notifications/channels/pigeon/retry', headers: as(test.adminToken) })).statusCode, 400);
  });

  it('sends the failed ones again once the receiver answers, each once, and deletes those left', async () => {
    const { id: watchlistId } = await call('POST', '/api/v1/watchlist', { name: 'Shells', search_query: 'q=process_name%3Acmd.exe' });
    await call('PUT', `/api/v1/watchlist/${watchlistId}/action_type/2`, { enabled: true });
    await test.container.detectionMatcher.idle();

    hook.mode = 'error';
    await hitTwice(7000);
    await waitFor('both posts given up', async () => (await posts()).failed === 2);
    assert.equal(hook.posts.length, 0);

    hook.mode = 'ok';
    assert.deepEqual(await call('POST', '/api/v1/notifications/channels/http_post/retry'), { channel: 'http_post', requeued: 2 });
    await waitFor('both posts delivered', () => hook.posts.length === 2);
    assert.equal(new Set(hook.posts.map((post) => post.id)).size, 2);
    await waitFor('the channel counts', async () => (await posts()).sent === 2);
    assert.deepEqual([(await posts()).failed, (await posts()).failing], [0, false]);

    hook.mode = 'error';
    await hitTwice(7100);
    await waitFor('the next two given up', async () => (await posts()).failed === 2);
    assert.deepEqual(await call('DELETE', '/api/v1/notifications/channels/http_post/failed'), { channel: 'http_post', deleted: 2 });
    const state = await posts();
    assert.deepEqual([state.failed, state.retrying, state.failing], [0, 0, false]);
    assert.equal((await call('GET', '/api/info')).notification_warning, null);
  });
});
