/**
 * bench/sensors/list-stall: what listing a large fleet (GET /api/v1/sensor, every sensor) costs the
 * request thread, in this process on the embedded store: the listing's duration and the longest
 * the event loop went without a turn meanwhile (in CPU time), which every check-in arriving then
 * waits for (issue 22 point 5).
 *
 *   node --import tsx bench/sensors/list-stall.ts [--sensors 10000] [--lists 5]
 *
 * Prints one JSON line: median and largest list duration and event-loop stall over the lists.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { createContainer } from '../../src/container.js';
import { loadAverage } from '../support/proc.js';

const { values } = parseArgs({ options: { sensors: { type: 'string', default: '10000' }, lists: { type: 'string', default: '5' } } });

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-list-'));
const container = await createContainer(loadConfig({ dataDir, logLevel: 'silent' }));
const app = await buildApp(container, { logRequests: false });
try {
  const token = (await container.services.users.bootstrapAdmin())!;
  const { install_code } = (await app.inject({ url: '/api/v1/group/1/install_code', headers: { 'x-auth-token': token } })).json();
  for (let i = 0; i < Number(values.sensors); i++) {
    await container.services.sensors.register({
      install_code, os_type: 'windows', computer_name: `WIN-${i}`, build_version_string: '006.001.002.71109', boot_id: '7',
      network_adapters: [{ ip: '10.1.2.3', mac: '00155D019C08' }],
    });
  }
  const loadBefore = loadAverage();
  const durations: number[] = [];
  const stalls: number[] = [];
  for (let n = 0; n < Number(values.lists); n++) {
    // CPU time between two turns of the event loop, not wall time: on a crowded machine the wall
    // time between turns is mostly the scheduler's, and the CPU time is what the listing holds.
    let last = process.cpuUsage();
    let stall = 0;
    const turn = () => {
      const used = process.cpuUsage(last);
      stall = Math.max(stall, (used.user + used.system) / 1000);
      last = process.cpuUsage();
    };
    const probe = setInterval(turn, 1);
    const startedMs = performance.now();
    const reply = await app.inject({ url: '/api/v1/sensor', headers: { 'x-auth-token': token } });
    durations.push(performance.now() - startedMs);
    clearInterval(probe);
    turn();
    stalls.push(stall);
    if (reply.statusCode !== 200 || (reply.json() as unknown[]).length !== Number(values.sensors)) throw new Error(`list: ${reply.statusCode}`);
  }
  const median = (xs: number[]) => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!);
  console.log(JSON.stringify({
    sensors: Number(values.sensors), lists: durations.length,
    list_ms_p50: median(durations), list_ms_max: Math.round(Math.max(...durations)),
    event_loop_stall_ms_p50: median(stalls), event_loop_stall_ms_max: Math.round(Math.max(...stalls)),
    load_average: [loadBefore, loadAverage()],
  }));
} finally {
  await app.close();
  await container.close();
  rmSync(dataDir, { recursive: true, force: true });
}
