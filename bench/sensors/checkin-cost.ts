/**
 * bench/sensors/checkin-cost: the server's own CPU per check-in, without TLS and sockets: the app
 * in this process on the embedded store, check-ins through app.inject, `--concurrency` of them in
 * flight at a time, as a fleet's arrive. What run.ts measures end to end also holds the TLS and
 * HTTP cost and the simulator's share of the cores; this isolates the route, service and store.
 *
 *   node --import tsx bench/sensors/checkin-cost.ts [--sensors 1000] [--rounds 5] [--concurrency 32]
 *
 * Prints one JSON line: CPU and wall time per check-in over the rounds after a first, warming one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { createContainer } from '../../src/container.js';
import { loadAverage } from '../support/proc.js';

const { values } = parseArgs({
  options: {
    sensors: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '32' },
  },
});
const sensorCount = Number(values.sensors);
const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-checkin-'));
const container = await createContainer(loadConfig({ dataDir, logLevel: 'silent' }));
const app = await buildApp(container, { logRequests: false });
try {
  const token = (await container.services.users.bootstrapAdmin())!;
  const code = (await app.inject({ url: '/api/v1/group/1/install_code', headers: { 'x-auth-token': token } })).json().install_code as string;
  const sensors: string[] = [];
  for (let i = 0; i < sensorCount; i++) {
    const registered = (await app.inject({
      method: 'POST', url: '/sensor/v1/register',
      payload: {
        install_code: code, os_type: 'windows', computer_name: `WIN-${i}`, build_version_string: '006.001.002.71109', boot_id: '7',
        network_adapters: [{ ip: '10.1.2.3', mac: '00155D019C08' }],
      },
    })).json();
    sensors.push(`Sensor ${registered.sensor_id}:${registered.sensor_secret}`);
  }
  const loadBefore = loadAverage();
  await round();
  const cpuBefore = process.cpuUsage();
  const startedMs = performance.now();
  for (let r = 0; r < rounds; r++) await round();
  const cpu = process.cpuUsage(cpuBefore);
  const checkins = sensorCount * rounds;
  console.log(JSON.stringify({
    checkins, concurrency,
    cpu_us_per_checkin: Math.round((cpu.user + cpu.system) / checkins),
    wall_us_per_checkin: Math.round(((performance.now() - startedMs) * 1000) / checkins),
    load_average: [loadBefore, loadAverage()],
  }));

  /** Every sensor checks in once, as a real one does: host facts, clock, uptime and health. */
  async function round(): Promise<void> {
    let next = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < sensors.length) {
        const index = next++;
        const reply = await app.inject({
          method: 'POST', url: '/sensor/v1/checkin', headers: { authorization: sensors[index]! },
          payload: {
            sensor_time: Date.now(), uptime: 1000 + index, sensor_uptime: 500 + index, boot_id: '7', is_isolating: false,
            health_status: 100, health_message: 'Healthy', network_adapters: [{ ip: '10.1.2.3', mac: '00155D019C08' }],
          },
        });
        if (reply.statusCode !== 200) throw new Error(`check-in: ${reply.statusCode} ${reply.body}`);
      }
    }));
  }
} finally {
  await app.close();
  await container.close();
  rmSync(dataDir, { recursive: true, force: true });
}
