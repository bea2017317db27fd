/**
 * Issue 18 point 5, storage maintenance, with two whole `vigil serve` processes on one PostgreSQL
 * database checking every second, a rollover every 2.6 s and a retention of 5.2 s: each hot
 * partition is rolled over by one server only, each expired partition deleted by one server only
 * (their logs say which), and both servers list the same partitions.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { processEvents } from './support/sensors.js';
import { call, pollUntil, registerSensor, startCluster, uploadOn, type Cluster } from './support/vigil-cluster.js';
import type { Server } from './support/vigil-cli.js';

const ROLLOVER_DAYS = 0.00003;
const RETENTION_DAYS = 0.00006;

interface Logged {
  partition: string;
  time: number;
}

/** What each server's log says it rolled over or deleted, and when. */
function maintenanceBy(server: Server, message: string): Logged[] {
  return server.output().split('\n').flatMap((line) => (line.includes(message) ? [JSON.parse(line) as Logged] : []));
}

describe('storage maintenance of two vigil servers on one PostgreSQL database', () => {
  let cluster: Cluster;
  let servers: Server[];
  before(async () => {
    cluster = await startCluster(2, {
      VIGIL_STORAGE_CHECK_SECONDS: '1', VIGIL_PARTITION_ROLLOVER_DAYS: String(ROLLOVER_DAYS), VIGIL_RETENTION_MAX_AGE_DAYS: String(RETENTION_DAYS),
    });
    servers = cluster.servers;
  });
  after(() => cluster.close());

  it('rolls each hot partition over once and deletes each expired partition once, whichever server checks', async () => {
    const token = cluster.adminToken;
    const sensor = await registerSensor(servers[0]!, token, { computer_name: 'ROLL-01' });
    let sequence = 0;
    const deleted = () => servers.flatMap((server) => maintenanceBy(server, 'deleting event partition').map((line) => line.partition));
    // Events in every partition, through both servers, until two partitions have expired.
    const done = await pollUntil(async () => {
      const server = servers[sequence % 2]!;
      sequence += 1;
      assert.equal((await uploadOn(server, sensor, sequence, processEvents(sequence, Date.now()))).status, 200);
      return deleted().length;
    }, (count) => count >= 2, 30_000, 250);
    assert.ok(done.ok, 'partitions expired and were deleted');

    type Listed = Record<string, { status: string; info: { startDate: string; endDate: string | null } }>;
    const total = (counts: number[]) => counts.reduce((sum, n) => sum + n, 0);
    // Maintenance goes on while the test reads: a rollover is logged just after it is made, a
    // deletion just before, so the logs and the lists agree at most instants, not all.
    const snapshot = async () => {
      const [onA, onB] = await Promise.all(servers.map((server) => call(server, token, 'GET', '/api/v1/storage/events/partition')));
      const rollovers = servers.map((server) => maintenanceBy(server, 'rolled the hot event partition over').length);
      const deletions = servers.map((server) => maintenanceBy(server, 'deleting event partition').length);
      return { onA: onA!.body as Listed, onB: onB!.body as Listed, rollovers, deletions, expected: 1 + total(rollovers) - total(deletions) };
    };
    const agreed = await pollUntil(snapshot, (read) => {
      const [a, b] = [Object.keys(read.onA).sort(), Object.keys(read.onB).sort()];
      return a.join() === b.join() && a.length === read.expected;
    }, 5_000, 100);
    const { onA, rollovers, deletions, expected } = agreed.value;
    console.log(`# rollovers by each server: ${rollovers.join(' and ')}; deletions: ${deletions.join(' and ')}`);
    assert.ok(agreed.ok, `both servers list the same partitions, one per rollover less the deletions (${expected}): ${JSON.stringify(agreed.value)}`);
    const partitions = Object.values(onA);
    assert.equal(partitions.filter((p) => p.status === 'hot').length, 1, 'one hot partition');
    // Two servers rolling over in the same period would leave a partition of a few milliseconds.
    for (const { info } of partitions.filter((p) => p.status !== 'hot')) {
      const spanMs = Date.parse(info.endDate!) - Date.parse(info.startDate);
      assert.ok(spanMs >= ROLLOVER_DAYS * 86_400_000, `a warm partition spans a whole period: ${JSON.stringify(info)}`);
    }
  });
});
