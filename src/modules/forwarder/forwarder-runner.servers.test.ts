/**
 * An output across two servers on one database (ADR 0022 leases, ADR 0024 cursors), on each
 * dialect: one server delivers it at a time, and when that server stops the other takes it over
 * from the cursor, so every alert reaches the receiver once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dialects } from '../../../test/support/dialects.js';
import { eventually } from '../../../test/support/forward-receivers.js';
import { tempDir } from '../../../test/support/temp.js';
import { twoServers, type TwoServers } from '../../../test/support/two-servers.js';
import type { SqlDatabase } from '../../db/database.js';
import { SqlJobLeasesStore } from '../../jobs/job-leases.store.js';
import { LeasedJobs } from '../../jobs/leased-jobs.js';
import { ForwarderRunner } from './forwarder-runner.js';
import { sqlSources } from './forwarder-sources.js';
import { OutputTurns } from './forwarder-turns.js';
import { addAlert, startReceiver } from './forwarder.store.contract.js';
import { SqlForwarderStore } from './forwarder.store.js';

const ORIGIN = { serverName: 'vigil-test', version: '1.0.0' };
const LEASE_MS = 600;

/** One server's forwarder: its leases, its runner, and the turns it delivers in process. */
function forwarderOn(db: SqlDatabase, holder: string) {
  const jobs = new LeasedJobs(new SqlJobLeasesStore(db), { leaseMs: LEASE_MS, holder, onError: () => undefined });
  const sources = { sql: sqlSources(db, ORIGIN, 30_000), raw: { only: () => assert.fail('no raw events were asked for') } };
  const store = new SqlForwarderStore(db);
  const turns = new OutputTurns(store, sources, { batchSize: 2, horizonMs: 0, fileDir: tempDir(), maxBusyShare: 1 });
  const runner = new ForwarderRunner(store, { turn: (o) => turns.turn(o), release: (id) => turns.release(id), stop: () => turns.stop(), close: () => turns.close() }, jobs, { pollMs: 50 });
  return {
    runner,
    async stop() {
      runner.stop();
      await jobs.stop();
      await runner.close();
    },
  };
}

for (const { name } of dialects) {
  describe(`a forwarder output across servers on ${name}`, () => {
    let servers: TwoServers;
    before(async () => {
      servers = await twoServers(name);
    });
    after(async () => {
      await servers.close();
    });

    it('is delivered by one server at a time, and by the other from the cursor once the first stops', async () => {
      const receiver = await startReceiver();
      const a = forwarderOn(servers.a, 'a');
      const b = forwarderOn(servers.b, 'b');
      try {
        await new SqlForwarderStore(servers.a).create({ name: 'soar', enabled: true, kind: 'http', format: 'json', settings: { url: receiver.url }, sources: { events_alert: true } }, 0);
        for (let id = 1; id <= 5; id++) await addAlert(servers.a, id, 1000 + id);
        a.runner.start();
        b.runner.start();
        await eventually(() => receiver.received.length >= 5, 'the first five alerts');
        await a.stop();
        for (let id = 6; id <= 9; id++) await addAlert(servers.b, id, 1000 + id);
        await eventually(() => receiver.received.length >= 9, 'the other server to deliver the rest', 3 * LEASE_MS + 5000);
        assert.deepEqual(receiver.received, Array.from({ length: 9 }, (_, i) => `alert-${i + 1}`), 'every alert once, in order');
      } finally {
        await a.stop();
        await b.stop();
        receiver.close();
      }
    });
  });
}
