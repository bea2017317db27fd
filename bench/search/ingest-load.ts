/**
 * The search benchmark's background ingest, in a process of its own so that generating events
 * does not share the measured server's event loop: simulated sensors register, then upload
 * simulator events at about `rate` events per second until SIGTERM, and print how many were
 * acknowledged as one JSON line.
 *
 *   node --import tsx bench/search/ingest-load.ts --server http://127.0.0.1:PORT --token TOKEN [--rate 5000] [--sensors 4] [--batch 500]
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { fetchInstallCode, SensorClient } from '../../src/sensor/client.js';
import { Endpoint } from '../../src/sensor/endpoint.js';

const { values } = parseArgs({
  options: {
    server: { type: 'string' },
    token: { type: 'string' },
    rate: { type: 'string', default: '5000' },
    sensors: { type: 'string', default: '4' },
    batch: { type: 'string', default: '500' },
  },
});
const server = values.server!;
const rate = Number(values.rate);
const batch = Number(values.batch);
const installCode = await fetchInstallCode({ server }, values.token!, 1);
const sensors = await Promise.all(Array.from({ length: Number(values.sensors) }, async (_, index) => {
  const endpoint = new Endpoint({ seed: 'bench-ingest', index, startMs: Date.now() });
  const client = new SensorClient({ server });
  await client.register(installCode, endpoint.facts);
  return { client, endpoint };
}));

let stopping = false;
let acknowledged = 0;
const began = performance.now();
process.on('SIGTERM', () => (stopping = true));
process.stdout.write('ready\n');
const intervalMs = (batch * sensors.length * 1000) / rate;
await Promise.all(sensors.map(async ({ client, endpoint }) => {
  for (let sequence = 1; !stopping; sequence++) {
    const started = performance.now();
    endpoint.syncClock(Date.now());
    await client.uploadEvents(sequence, endpoint.take(batch));
    acknowledged += batch;
    await sleep(Math.max(0, intervalMs - (performance.now() - started)));
  }
}));
process.stdout.write(`${JSON.stringify({ acknowledged, seconds: (performance.now() - began) / 1000 })}\n`);
