/**
 * Issue 18 point 5, the crash: sensors stream event batches to server A, A is killed (SIGKILL) in
 * the middle, and every batch A acknowledged is searchable through server B. The sensors then send
 * their unacknowledged batch again to B, as the protocol says, and each process is stored once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { processEvents } from './support/sensors.js';
import { call, killHard, pollUntil, registerSensor, startCluster, uploadOn, type Cluster, type HttpSensor } from './support/vigil-cluster.js';
import type { Server } from './support/vigil-cli.js';

const SENSORS = 4;
const PROCESSES_PER_BATCH = 25;
const EVENTS_PER_PROCESS = processEvents(1).length;

interface Stream {
  sensor: HttpSensor;
  hostname: string;
  acknowledged: number;
  /** The batch sent and not acknowledged when A died. */
  unacknowledged?: { sequence: number; events: unknown[] };
}

function batch(sequence: number): unknown[] {
  const start = Date.now();
  return Array.from({ length: PROCESSES_PER_BATCH }, (_, i) => processEvents(sequence * 1000 + i, start)).flat();
}

/** Sends batches 1, 2, 3, … to `server`, one at a time, until a send fails. */
async function stream(server: Server, into: Stream): Promise<void> {
  for (let sequence = 1; ; sequence++) {
    const events = batch(sequence);
    try {
      const ack = await uploadOn(server, into.sensor, sequence, events);
      assert.equal(ack.status, 200, JSON.stringify(ack.body));
      assert.equal(ack.body.accepted, events.length);
      into.acknowledged = sequence;
    } catch (error) {
      if (error instanceof assert.AssertionError) throw error;
      into.unacknowledged = { sequence, events };
      return;
    }
  }
}

describe('a vigil server killed in the middle of ingest', () => {
  let cluster: Cluster;
  let a: Server;
  let b: Server;
  before(async () => {
    cluster = await startCluster(2);
    [a, b] = cluster.servers as [Server, Server];
  });
  after(() => cluster.close());

  it('loses no batch it acknowledged: all are searchable through the other server, and the retried ones are stored once', async () => {
    const token = cluster.adminToken;
    const streams: Stream[] = [];
    for (let i = 0; i < SENSORS; i++) {
      const hostname = `KILL-${i}`;
      streams.push({ sensor: await registerSensor(a, token, { computer_name: hostname }), hostname, acknowledged: 0 });
    }
    const running = streams.map((s) => stream(a, s));
    await pollUntil(async () => streams.reduce((sum, s) => sum + s.acknowledged, 0), (acks) => acks >= 3 * SENSORS, 20_000);
    await killHard(a);
    await Promise.all(running);

    const processesOf = async (hostname: string) => {
      const search = await call(b, token, 'GET', `/api/v1/process?q=${encodeURIComponent(`hostname:${hostname}`)}&rows=1`);
      assert.equal(search.status, 200, JSON.stringify(search.body));
      return search.body.total_results as number;
    };
    let acknowledgedEvents = 0;
    for (const s of streams) {
      const stored = await processesOf(s.hostname);
      acknowledgedEvents += s.acknowledged * PROCESSES_PER_BATCH * EVENTS_PER_PROCESS;
      assert.ok(stored >= s.acknowledged * PROCESSES_PER_BATCH, `${s.hostname}: ${s.acknowledged} batches acknowledged, ${stored} processes stored`);
      assert.ok(stored <= (s.acknowledged + 1) * PROCESSES_PER_BATCH, `${s.hostname}: no more than was sent`);
    }
    console.log(`# A acknowledged ${acknowledgedEvents} events in ${streams.map((s) => s.acknowledged).join('+')} batches before it was killed; all are on B`);

    for (const s of streams) {
      const { sequence, events } = s.unacknowledged!;
      const retried = await uploadOn(b, s.sensor, sequence, events);
      assert.equal(retried.status, 200, JSON.stringify(retried.body));
      const expected = (s.acknowledged + 1) * PROCESSES_PER_BATCH;
      const settled = await pollUntil(() => processesOf(s.hostname), (stored) => stored === expected, 2_000, 50);
      assert.equal(settled.value, expected, `${s.hostname}: every batch stored once after the retry (duplicate: ${retried.body.duplicate})`);
    }
  });
});
