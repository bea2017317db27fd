/**
 * LISTEN/NOTIFY between two pools on one real PostgreSQL database: a notice sent through one
 * reaches the listener of the other, and a listener whose connection the server ends (a restart,
 * a failover, an administrator) connects again and hears the notices sent after.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { twoPostgresServers, type TwoServers } from '../../../test/support/two-servers.js';
import type { PostgresDatabase } from './postgres.js';
import { listen, notify, type Listening } from './postgres-listener.js';

async function until(what: string, check: () => boolean, limitMs = 5_000): Promise<void> {
  const began = Date.now();
  while (!check()) {
    if (Date.now() - began > limitMs) assert.fail(`${what} within ${limitMs} ms`);
    await sleep(10);
  }
}

describe('a PostgreSQL listener', () => {
  let servers: TwoServers<PostgresDatabase>;
  let listening: Listening;
  const heard: string[] = [];
  before(async () => {
    servers = await twoPostgresServers();
    listening = await listen(servers.a, 'vigil_test_channel', (payload) => heard.push(payload), { reconnectMs: 100, onError: () => undefined });
  });
  after(async () => {
    await listening.close();
    await servers.close();
  });

  it('hears what another server notifies', async () => {
    await notify(servers.b, 'vigil_test_channel', 'first');
    await until('the notice arrives', () => heard.includes('first'));
  });

  it('connects again when the server ends its session, and hears the notices after', async () => {
    const ended = await servers.b.get<{ ended: number }>(
      "SELECT count(pg_terminate_backend(pid))::int AS ended FROM pg_stat_activity WHERE application_name = 'vigil-test-server-1 listener'",
    );
    assert.equal(ended?.ended, 1, 'the listener\'s session was ended');
    // Sent until heard: notices sent while the listener is away are lost, by design.
    const began = Date.now();
    while (!heard.includes('after')) {
      if (Date.now() - began > 5_000) assert.fail('no notice heard after the reconnection');
      await notify(servers.b, 'vigil_test_channel', 'after');
      await sleep(50);
    }
  });
});
